-- One row per debate calibration (event debate.calibrated): the configuration derived from a backbone's measured
-- profile, and where the profile was measured (corpus, judge, runs, contracts).
select
    json_extract_string(payload, '$.backbone') as backbone,
    json_extract_string(payload, '$.corpus_id') as corpus_id,
    json_extract_string(payload, '$.judge') as judge,
    from_json(json_extract(payload, '$.runs'), '["INTEGER"]') as runs,
    cast(json_extract(payload, '$.contracts') as integer) as contracts,
    cast(json_extract(payload, '$.instances') as integer) as instances,
    json_extract_string(payload, '$.config.name') as config_name,
    json_extract_string(payload, '$.config_hash') as config_hash,
    cast(json_extract(payload, '$.profile.rdi') as double) as rdi,
    json_extract(payload, '$.config') as config,
    time, seq
from events
where type = 'debate.calibrated'
