-- The evaluation judge's verdict per instance; when an instance was judged more than once
-- (another judge, a re-judgement), the latest verdict counts.
select
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.clause_type') as clause_type,
    json_extract_string(payload, '$.verdict') as verdict,
    json_extract_string(payload, '$.mismatch_type') as mismatch_type,
    json_extract_string(payload, '$.judge') as judge
from events
where type = 'verdict.recorded'
qualify row_number() over (partition by model, run, contract_id, clause_type order by time desc, seq desc) = 1
