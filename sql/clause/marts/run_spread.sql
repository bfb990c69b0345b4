-- depends_on: metric_cube
-- How much each rate moves between runs: mean, sample standard deviation (null with one run), minimum and
-- maximum across a model's per-run values, pooled over categories (category null) and per category. Runs in
-- which a rate is undefined (zero denominator) are left out of its figures; `runs_with_value` counts the rest.
with per_run as (
    select model, category, run, far, frr, acc, hal_tp, hal_gen, jeq, rdi
    from metric_cube
    where level in ('run', 'run_category')
),
long as (
    select * from per_run unpivot include nulls (value for metric in (far, frr, acc, hal_tp, hal_gen, jeq, rdi))
)
select
    model, category, metric,
    count(*) as runs,
    count(value) as runs_with_value,
    avg(value order by run) as mean,
    stddev_samp(value order by run) as sd,  -- in run order, so the last bits never depend on scan order
    min(value) as min_value,
    max(value) as max_value
from long
group by model, category, metric
order by model, category nulls first,
         list_position(['far', 'frr', 'acc', 'hal_tp', 'hal_gen', 'jeq', 'rdi'], metric)
