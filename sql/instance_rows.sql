-- depends_on: stg_extractions, stg_verdicts, stg_imports
-- Every recorded instance, audited or imported, before de-duplication (the duplicate check reads this).
select
    e.model, e.run, e.contract_id, e.clause_type, o.present as gt_present, e.predicted_present,
    case when o.present and e.predicted_present then v.verdict end as verdict,
    case when o.present and e.predicted_present then v.mismatch_type end as mismatch_type,
    'audit' as source, e.time
from stg_extractions e
join oracle o on o.corpus_id = e.corpus_id and o.contract_id = e.contract_id and o.clause_type = e.clause_type
left join stg_verdicts v
    on v.model = e.model and v.run = e.run and v.contract_id = e.contract_id and v.clause_type = e.clause_type
union all
select model, run, contract_id, clause_type, gt_present, predicted_present, verdict, mismatch_type, 'import', time
from stg_imports
