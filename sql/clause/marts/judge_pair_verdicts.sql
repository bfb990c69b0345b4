-- depends_on: int_judge_pairs, instance_rows, scope
-- The true positives in scope labelled by the report's judge (A) and by another judge (B): what judge
-- agreement is computed over.
select p.model, p.run, p.contract_id, p.clause_type, p.judge_a, p.verdict_a, p.mismatch_a, p.judge_b, p.verdict_b,
       p.mismatch_b
from int_judge_pairs p
semi join instance_rows r
    on r.model = p.model and r.run = p.run and r.contract_id = p.contract_id and r.clause_type = p.clause_type
   and r.outcome = 'TP' and r.source = 'audit'
where p.judge_a = (select judge from scope)
