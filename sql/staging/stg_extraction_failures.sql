-- Contracts with no usable answer (event extraction.failed): the stage that failed and why.
select
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.stage') as stage,
    json_extract_string(payload, '$.reason') as reason,
    time
from events
where type = 'extraction.failed'
