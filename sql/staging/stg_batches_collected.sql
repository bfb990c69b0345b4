-- One row per provider batch job whose results were recorded (event batch.collected): its final status and
-- how many of its requests were answered or failed (failed ones are retried interactively).
select
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.batch_id') as batch_id,
    json_extract_string(payload, '$.status') as status,
    cast(json_extract(payload, '$.answered') as integer) as answered,
    cast(json_extract(payload, '$.failed') as integer) as failed,
    time
from events
where type = 'batch.collected'
