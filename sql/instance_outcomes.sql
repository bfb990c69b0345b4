-- depends_on: instance_rows
-- One row per instance (model, run, contract, clause type): TP/FP/FN/TN, verdict, mismatch, category.
-- A duplicated instance keeps its first record (and fails the no-duplicate check).
select
    r.model, r.run, r.contract_id, r.clause_type, t.category,
    r.gt_present, r.predicted_present,
    case
        when r.gt_present and r.predicted_present then 'TP'
        when not r.gt_present and r.predicted_present then 'FP'
        when r.gt_present and not r.predicted_present then 'FN'
        else 'TN'
    end as outcome,
    r.verdict, r.mismatch_type, r.source
from instance_rows r
join clause_taxonomy t on t.clause_type = r.clause_type
qualify row_number() over (partition by r.model, r.run, r.contract_id, r.clause_type order by r.time) = 1
