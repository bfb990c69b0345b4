-- depends_on: stg_verdicts
-- Each judge's verdict per instance; when a judge labelled an instance more than once, its latest counts.
-- Verdicts of different judges are never mixed: every report picks exactly one judge.
select judge, model, run, contract_id, clause_type, verdict, mismatch_type
from stg_verdicts
qualify row_number() over (partition by judge, model, run, contract_id, clause_type order by time desc, seq desc) = 1
