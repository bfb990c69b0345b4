-- Judge calls on debated outputs that gave no usable verdict (event debate.verdict_failed); the instance stays
-- unjudged until a re-run.
select
    json_extract_string(payload, '$.judge') as judge,
    json_extract_string(payload, '$.backbone') as backbone,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.config_hash') as config_hash,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.clause_type') as clause_type,
    json_extract_string(payload, '$.reason') as reason,
    coalesce(cast(json_extract(payload, '$.usage.input_tokens') as bigint), 0) as input_tokens,
    coalesce(cast(json_extract(payload, '$.usage.output_tokens') as bigint), 0) as output_tokens,
    coalesce(cast(json_extract(payload, '$.usage.cached_tokens') as bigint), 0) as cached_tokens,
    coalesce(cast(json_extract(payload, '$.usage.cache_write_tokens') as bigint), 0) as cache_write_tokens,
    time
from events
where type = 'debate.verdict_failed'
