-- depends_on: metric_cube
-- For every model with at least two runs the scope's judge labelled: its newest such run against its earlier such
-- runs pooled, overall (category null) and per category, as the judged counts the drift comparison resamples. A run
-- whose TPs the judge labelled none of has no content figure to compare: it is left out here (and named by the
-- drift check), never compared as 0.
with labelled as (select model, run from metric_cube where level = 'run' and judged > 0),
runs as (select model, max(run) as newest, count(*) as n_runs from labelled group by model)
select c.model, c.category, c.run = r.newest as is_newest, r.newest, r.n_runs,
       sum(c.judged) as judged, sum(c.contradicted) as contradicted,
       sum(c.n_extra_condition) as extra, sum(c.n_missing_condition) as missing
from metric_cube c
join runs r using (model)
semi join labelled l on l.model = c.model and l.run = c.run
where c.level in ('run', 'run_category') and r.n_runs >= 2
group by all
order by model, category nulls first, is_newest
