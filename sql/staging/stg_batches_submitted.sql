-- One row per provider batch job submitted for an extraction partition (event batch.submitted): which job,
-- for which model and run, holding how many requests.
select
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.provider') as provider,
    json_extract_string(payload, '$.model_id') as model_id,
    json_extract_string(payload, '$.batch_id') as batch_id,
    cast(json_array_length(json_extract(payload, '$.request_keys')) as integer) as requests,
    time
from events
where type = 'batch.submitted'
