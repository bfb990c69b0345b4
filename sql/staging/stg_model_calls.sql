-- One row per completed extraction call (event model.call): who was called, for which contract, tokens
-- (of the prompt, those read from and written to the provider's cache), and the batch that served it if any.
select
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.subject') as contract_id,
    json_extract_string(payload, '$.request_key') as request_key,
    json_extract_string(payload, '$.served_model') as served_model,  -- the response's model field, when recorded
    coalesce(cast(json_extract(payload, '$.usage.input_tokens') as bigint), 0) as input_tokens,
    coalesce(cast(json_extract(payload, '$.usage.output_tokens') as bigint), 0) as output_tokens,
    coalesce(cast(json_extract(payload, '$.usage.cached_tokens') as bigint), 0) as cached_tokens,
    coalesce(cast(json_extract(payload, '$.usage.cache_write_tokens') as bigint), 0) as cache_write_tokens,
    json_extract_string(payload, '$.batch_id') as batch_id,  -- set when the call was served by a batch API
    cast(json_extract(payload, '$.latency_s') as double) as latency_s,
    time
from events
where type = 'model.call'
