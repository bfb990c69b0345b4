-- A judge's result on the dissociation suite (event judge.validated), per family.
select
    json_extract_string(payload, '$.judge') as judge,
    json_extract_string(payload, '$.judge_version') as judge_version,
    json_extract_string(payload, '$.corpus_id') as corpus_id,
    json_extract_string(payload, '$.suite_version') as suite_version,
    json_extract_string(payload, '$.suite_digest') as suite_digest,
    cast(json_extract(payload, '$.items') as integer) as items,
    cast(json_extract(payload, '$.passed') as boolean) as passed,
    cast(json_extract(payload, '$.families.identical.as_expected') as double) as identical,
    cast(json_extract(payload, '$.families.force_changed.as_expected') as double) as force_changed,
    cast(json_extract(payload, '$.families.force_changed.right_mismatch') as double) as right_mismatch,
    cast(json_extract(payload, '$.families.force_kept.as_expected') as double) as force_kept,
    time, seq
from events
where type = 'judge.validated'
