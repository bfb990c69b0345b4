-- One row per failed extraction call (event model.call_failed): paid for when tokens were used.
select
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.subject') as contract_id,
    json_extract_string(payload, '$.error') as error,
    coalesce(cast(json_extract(payload, '$.usage.input_tokens') as bigint), 0) as input_tokens,
    coalesce(cast(json_extract(payload, '$.usage.output_tokens') as bigint), 0) as output_tokens,
    coalesce(cast(json_extract(payload, '$.usage.cached_tokens') as bigint), 0) as cached_tokens,
    time
from events
where type = 'model.call_failed'
