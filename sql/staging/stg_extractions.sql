-- One row per extracted instance recorded by an audited partition (event extraction.recorded).
select
    json_extract_string(payload, '$.corpus_id') as corpus_id,
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.clause_type') as clause_type,
    cast(json_extract(payload, '$.present') as boolean) as predicted_present,
    time
from events
where type = 'extraction.recorded'
