-- depends_on: stg_extractions, stg_imports, oracle, clause_taxonomy
-- Every recorded instance of every corpus, audited or imported, before de-duplication, with its detection
-- outcome. Audited rows take their verdict from the report's judge later; imported rows carry their own.
with rows as (
    select e.corpus_id, e.model, e.run, e.contract_id, e.clause_type, o.present as gt_present, e.present as predicted_present,
           null::varchar as imported_verdict, null::varchar as imported_mismatch_type, 'audit' as source, e.time
    from stg_extractions e
    join oracle o on o.corpus_id = e.corpus_id and o.contract_id = e.contract_id and o.clause_type = e.clause_type
    union all
    select corpus_id, model, run, contract_id, clause_type, gt_present, predicted_present, verdict, mismatch_type,
           'import', time
    from stg_imports
)
select
    r.corpus_id, r.model, r.run, r.contract_id, r.clause_type, t.category, r.gt_present, r.predicted_present,
    case
        when r.gt_present and r.predicted_present then 'TP'
        when not r.gt_present and r.predicted_present then 'FP'
        when r.gt_present and not r.predicted_present then 'FN'
        else 'TN'
    end as outcome,
    r.imported_verdict, r.imported_mismatch_type, r.source, r.time
from rows r
join clause_taxonomy t on t.clause_type = r.clause_type
