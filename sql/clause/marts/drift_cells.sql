-- depends_on: metric_cube, per_run_metrics
-- For every model with at least two runs in scope: its newest run against its earlier runs pooled, overall
-- (category null) and per category, as the counts the drift comparison resamples.
with runs as (select model, max(run) as newest, count(distinct run) as n_runs from per_run_metrics group by model)
select c.model, c.category, c.run = r.newest as is_newest, r.newest, r.n_runs,
       sum(c.tp) as tp, sum(c.contradicted) as contradicted,
       sum(c.n_extra_condition) as extra, sum(c.n_missing_condition) as missing
from metric_cube c
join runs r using (model)
where c.level in ('run', 'run_category') and r.n_runs >= 2
group by all
order by model, category nulls first, is_newest
