-- depends_on: int_instance_rows, int_verdicts, int_debate_instance_rows, int_debate_verdicts, audit_scope, scope
-- Every recorded instance in scope, before de-duplication (the duplicate checks read this), with the verdict
-- of the report's judge on audited true positives; imported rows keep the verdict they came with. Debated
-- outputs come in as their debate system's instances (`<backbone>+debate`), judged like audited ones.
select
    r.model, r.run, r.contract_id, r.clause_type, r.category, r.gt_present, r.predicted_present, r.outcome,
    case when r.outcome = 'TP' then coalesce(r.imported_verdict, v.verdict) end as verdict,
    case when r.outcome = 'TP' then coalesce(r.imported_mismatch_type, v.mismatch_type) end as mismatch_type,
    r.source, r.time
from (select * from int_instance_rows union all by name select * from int_debate_instance_rows) r
semi join audit_scope s on s.model = r.model and s.run = r.run and s.contract_id = r.contract_id
left join (select * from int_verdicts union all by name select * from int_debate_verdicts) v
    on v.judge = (select judge from scope) and r.source in ('audit', 'debate')
   and v.model = r.model and v.run = r.run and v.contract_id = r.contract_id and v.clause_type = r.clause_type
where r.corpus_id = (select corpus_id from scope)
