-- Judge calls that gave no usable verdict (event verdict.failed); the instance stays unjudged.
select
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.judge') as judge,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.clause_type') as clause_type,
    json_extract_string(payload, '$.reason') as reason,
    coalesce(cast(json_extract(payload, '$.usage.input_tokens') as bigint), 0) as input_tokens,
    coalesce(cast(json_extract(payload, '$.usage.output_tokens') as bigint), 0) as output_tokens,
    coalesce(cast(json_extract(payload, '$.usage.cached_tokens') as bigint), 0) as cached_tokens,
    time
from events
where type = 'verdict.failed'
