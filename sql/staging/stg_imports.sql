-- Instance outcomes brought in with `lhl import outcomes` (event outcome.imported, validated on import).
-- Outcomes imported into a home without a corpus belong to the pseudo-corpus 'imported'.
select
    coalesce(json_extract_string(payload, '$.corpus_id'), 'imported') as corpus_id,
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.clause_type') as clause_type,
    cast(json_extract(payload, '$.gt_present') as boolean) as gt_present,
    cast(json_extract(payload, '$.predicted_present') as boolean) as predicted_present,
    json_extract_string(payload, '$.verdict') as verdict,
    json_extract_string(payload, '$.mismatch_type') as mismatch_type,
    time
from events
where type = 'outcome.imported'
