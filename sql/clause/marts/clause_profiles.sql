-- depends_on: metric_cube
-- One row per (model, clause type), pooled over runs.
select model, category, clause_type, runs, n, tp, fp, fn, tn, supported, contradicted,
       n_missing_condition, n_extra_condition, far, frr, acc, hal_tp, hal_gen, jeq, rdi, missing_rows
from metric_cube
where level = 'clause_type'
order by model, category, clause_type
