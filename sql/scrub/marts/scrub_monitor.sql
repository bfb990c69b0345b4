-- depends_on: scrub_units, scrub_cells, scrub_missing, contractscrub_scope, contractscrub_scope_models, contractscrub_scope_runs
-- The monitoring series' statistics (lhl_platform/monitoring): per (model, run, category) in scope, recall's units
-- are the gold tuples (sum: the matched ones), precision's the predictions (sum: the matched ones), F1's the atoms
-- of multiset matching (a match, an unmatched gold tuple or an unmatched prediction; sum: the matches). The overall
-- figure is the mean over the categories, formed by the monitoring code as the leaderboard forms it. The round's date
-- is when it recorded its contracts; a round with a missing call is partial.
with cells as (
    select model, run, category, sum(tp) as tp, sum(fp) as fp, sum(fn) as fn
    from scrub_units
    group by model, run, category
),
rounds as (
    select c.model, c.run, max(c.time) as at, null::varchar as judge,
           (select gold_version from contractscrub_scope) as gold_version,
           exists (select 1 from scrub_missing m where m.model = c.model and m.run = c.run) as partial
    from scrub_cells c
    where c.item_set = (select item_set from contractscrub_scope)
      and c.model in (select model from contractscrub_scope_models)
      and c.run in (select run from contractscrub_scope_runs)
    group by c.model, c.run
),
stats as (
    select model, run, category, 'recall' as metric, tp + fn as n, tp as s1, tp as s2 from cells
    union all select model, run, category, 'precision', tp + fp, tp, tp from cells
    union all select model, run, category, 'f1', tp + fp + fn, tp, tp from cells
)
select r.model, r.run, r.at, r.judge, r.gold_version, r.partial, s.category, s.metric, s.n::bigint as n,
       s.s1::double as s1, s.s2::double as s2
from stats s
join rounds r using (model, run)
order by r.model, r.run, s.metric, s.category
