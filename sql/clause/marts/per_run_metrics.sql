-- depends_on: metric_cube
-- One row per (model, run) in scope.
select model, run, runs, n, tp, fp, fn, tn, supported, contradicted, n_missing_condition,
       n_extra_condition, far, frr, acc, hal_tp, hal_gen, jeq, rdi, missing_rows
from metric_cube
where level = 'run'
order by model, run
