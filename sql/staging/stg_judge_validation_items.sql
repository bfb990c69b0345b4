-- One suite item as a judge labelled it (event judge.validation_item).
select
    json_extract_string(payload, '$.judge') as judge,
    json_extract_string(payload, '$.suite_digest') as suite_digest,
    json_extract_string(payload, '$.item_id') as item_id,
    json_extract_string(payload, '$.family') as family,
    json_extract_string(payload, '$.kind') as kind,
    json_extract_string(payload, '$.verdict') as verdict,
    json_extract_string(payload, '$.mismatch_type') as mismatch_type,
    json_extract_string(payload, '$.error') as error,
    time
from events
where type = 'judge.validation_item'
