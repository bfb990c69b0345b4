-- One row per (stored subset, contract) (event subset.created).
select
    json_extract_string(payload, '$.name') as subset,
    unnest(from_json(json_extract(payload, '$.contract_ids'), '["VARCHAR"]')) as contract_id,
    cast(json_extract(payload, '$.seed') as integer) as seed,
    time
from events
where type = 'subset.created'
