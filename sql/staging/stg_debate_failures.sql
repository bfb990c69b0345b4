-- Debated instances that could not finish (event debate.failed): the role and round whose call failed, and why.
select
    json_extract_string(payload, '$.backbone') as backbone,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.config_hash') as config_hash,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.clause_type') as clause_type,
    json_extract_string(payload, '$.role') as role,
    cast(json_extract(payload, '$.round') as integer) as round,
    json_extract_string(payload, '$.stage') as stage,
    json_extract_string(payload, '$.reason') as reason,
    time
from events
where type = 'debate.failed'
