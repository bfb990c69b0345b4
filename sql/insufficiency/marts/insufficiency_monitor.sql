-- depends_on: insufficiency_units, insufficiency_element_hits, insufficiency_cells, insufficiency_missing, insufficiency_scope, insufficiency_scope_models, insufficiency_scope_runs
-- The monitoring series' statistics (lhl_platform/monitoring): per (model, run) in scope, the seed's overall figures
-- as means of per-item values over the judged responses (F2 and recall over the variants, hedge rate over the
-- variants, over-flag over the base queries: units, sum, sum of squares), and recall per element category pooled
-- over the gold elements (units: the elements; sum: those identified). The round's date is when it recorded its
-- cells; a round with a cell unanswered or unjudged is partial.
with rounds as (
    select c.model, c.run, max(c.time) as at, (select judge from insufficiency_scope) as judge,
           (select gold_version from insufficiency_scope) as gold_version,
           exists (select 1 from insufficiency_missing m where m.model = c.model and m.run = c.run) as partial
    from insufficiency_cells c
    where c.item_set = (select item_set from insufficiency_scope)
      and c.model in (select model from insufficiency_scope_models)
      and c.run in (select run from insufficiency_scope_runs)
    group by c.model, c.run
),
overall as (
    select model, run, null::varchar as category, 'f2' as metric, count(f2) as n, sum(f2) as s1, sum(f2 * f2) as s2
    from insufficiency_units group by model, run
    union all select model, run, null, 'recall', count(recall), sum(recall), sum(recall * recall)
    from insufficiency_units group by model, run
    union all select model, run, null, 'hedge_rate', count(hedge), sum(hedge), sum(hedge)
    from insufficiency_units group by model, run
    union all select model, run, null, 'over_flag', count(over_flag), sum(over_flag), sum(over_flag)
    from insufficiency_units group by model, run
),
by_category as (
    select model, run, category, 'recall' as metric, count(*) as n, count(*) filter (where identified) as s1,
           count(*) filter (where identified) as s2
    from insufficiency_element_hits
    group by model, run, category
)
select r.model, r.run, r.at, r.judge, r.gold_version, r.partial, s.category, s.metric, s.n::bigint as n,
       coalesce(s.s1, 0)::double as s1, coalesce(s.s2, 0)::double as s2
from (select * from overall union all select * from by_category) s
join rounds r using (model, run)
order by r.model, r.run, s.metric, s.category nulls first
