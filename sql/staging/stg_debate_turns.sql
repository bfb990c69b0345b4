-- One row per role answer in a debate (event debate.turn): round, role, the call behind it and its tokens.
select
    json_extract_string(payload, '$.backbone') as backbone,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.config_hash') as config_hash,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.clause_type') as clause_type,
    cast(json_extract(payload, '$.round') as integer) as round,
    json_extract_string(payload, '$.role') as role,
    json_extract_string(payload, '$.request_key') as request_key,
    json_array_length(json_extract(payload, '$.discarded_quotes')) as discarded_quotes,
    coalesce(cast(json_extract(payload, '$.usage.input_tokens') as bigint), 0) as input_tokens,
    coalesce(cast(json_extract(payload, '$.usage.output_tokens') as bigint), 0) as output_tokens,
    coalesce(cast(json_extract(payload, '$.usage.cached_tokens') as bigint), 0) as cached_tokens,
    coalesce(cast(json_extract(payload, '$.usage.cache_write_tokens') as bigint), 0) as cache_write_tokens,
    stream, time, seq
from events
where type = 'debate.turn'
