-- The contracts each audited (model, run) was asked to cover (event audit.scope), one row per contract.
select distinct
    json_extract_string(payload, '$.corpus_id') as corpus_id,
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    unnest(from_json(json_extract(payload, '$.contract_ids'), '["VARCHAR"]')) as contract_id
from events
where type = 'audit.scope'
