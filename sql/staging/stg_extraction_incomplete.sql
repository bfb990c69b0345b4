-- Contracts whose answer left clause types out or answered them badly (event extraction.incomplete).
select
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.contract_id') as contract_id,
    from_json(json_extract(payload, '$.problems'), '["VARCHAR"]') as problems,
    time
from events
where type = 'extraction.incomplete'
