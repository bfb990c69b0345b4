-- depends_on: instance_rows
-- One row per instance (model, run, contract, clause type) in scope: TP/FP/FN/TN, verdict, mismatch, category.
-- A duplicated instance keeps its first record (and fails the no-duplicate check).
select model, run, contract_id, clause_type, category, gt_present, predicted_present, outcome, verdict,
       mismatch_type, source
from instance_rows
qualify row_number() over (partition by model, run, contract_id, clause_type order by time) = 1
