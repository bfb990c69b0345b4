-- One row per routing decision of a debate (event debate.route): after which role, where the debate went and why.
select
    json_extract_string(payload, '$.backbone') as backbone,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.config_hash') as config_hash,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.clause_type') as clause_type,
    cast(json_extract(payload, '$.round') as integer) as round,
    json_extract_string(payload, '$.after') as after_role,
    json_extract_string(payload, '$.route') as route,
    cast(json_extract(payload, '$.structural_flag') as boolean) as structural_flag,
    cast(json_extract(payload, '$.agreed') as boolean) as agreed,
    json_extract_string(payload, '$.consensus') as consensus,
    json_extract_string(payload, '$.reason') as reason,
    time, seq
from events
where type = 'debate.route'
