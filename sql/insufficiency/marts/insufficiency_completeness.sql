-- depends_on: insufficiency_units, int_insufficiency_gold, insufficiency_scope, insufficiency_scope_models, insufficiency_scope_items, insufficiency_scope_runs
-- Per model in scope, what it covers of the scope: the (item, run) cells the scope asks for (every item of the set
-- kept in the gold version in scope, in every run in scope), how many of them have a judgment by the scope's judge, and whether that is all of them.
-- A model that lacks any (a missing or failed response, a missing judgment, a run it was not audited in) is
-- incomplete: its overall figures are null and it is not ranked (insufficiency_leaderboard, insufficiency_by_category);
-- every ranked model is therefore scored on the same cells.
with asked as (
    select (select count(*) from insufficiency_scope_items s
            semi join int_insufficiency_gold g on g.item = s.item and g.item_set = (select item_set from insufficiency_scope)
                and g.gold_version = (select gold_version from insufficiency_scope)) as items,
           (select count(*) from insufficiency_scope_runs) as run_count,
           (select coalesce(list(run order by run), []) from insufficiency_scope_runs) as runs
),
judged as (select model, count(*) as judged from insufficiency_units group by model)
select m.model, a.items, a.runs, a.items * a.run_count as cells, coalesce(j.judged, 0) as judged,
       a.items * a.run_count > 0 and coalesce(j.judged, 0) = a.items * a.run_count as complete
from insufficiency_scope_models m
cross join asked a
left join judged j using (model)
order by m.model
