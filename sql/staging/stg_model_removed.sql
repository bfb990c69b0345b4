-- One row per model removed from the registry (event model.removed); its history stays.
select json_extract_string(payload, '$.name') as name, time, seq
from events
where type = 'model.removed'
