-- One row per structural gate evaluated on a proposed flip (event debate.gate): addition or deletion, and whether
-- the flip went through.
select
    json_extract_string(payload, '$.backbone') as backbone,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.config_hash') as config_hash,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.clause_type') as clause_type,
    json_extract_string(payload, '$.gate') as gate,
    cast(json_extract(payload, '$.baseline_present') as boolean) as baseline_present,
    cast(json_extract(payload, '$.proposed_present') as boolean) as proposed_present,
    cast(json_extract(payload, '$.verifier_confirmed') as boolean) as verifier_confirmed,
    cast(json_extract(payload, '$.verifier_confidence') as double) as verifier_confidence,
    json_extract_string(payload, '$.consensus') as consensus,
    cast(json_extract(payload, '$.passed') as boolean) as passed,
    json_extract_string(payload, '$.reason') as reason,
    time, seq
from events
where type = 'debate.gate'
