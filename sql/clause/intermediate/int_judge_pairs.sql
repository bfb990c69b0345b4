-- depends_on: int_verdicts
-- Every instance that two different judges labelled, with both verdicts (each judge's latest), for agreement.
select a.model, a.run, a.contract_id, a.clause_type,
       a.judge as judge_a, a.verdict as verdict_a, a.mismatch_type as mismatch_a,
       b.judge as judge_b, b.verdict as verdict_b, b.mismatch_type as mismatch_b
from int_verdicts a
join int_verdicts b
    on b.model = a.model and b.run = a.run and b.contract_id = a.contract_id and b.clause_type = a.clause_type
   and b.judge <> a.judge
