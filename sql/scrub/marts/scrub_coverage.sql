-- depends_on: scrub_cells, scrub_units, scrub_missing, contractscrub_scope, contractscrub_scope_models, contractscrub_scope_runs
-- The one coverage statement per model in scope, which the leaderboard, its rank and the report's coverage section
-- read: the runs the scope asks for and those the model was audited in, the contracts and calls (nine per contract
-- and run) it was asked, answered and missed, the categories of its missing calls and those it never answered.
-- `complete`: every call it was asked is answered; only then has it overall figures (a mean over the categories it
-- answered is not a mean over the nine). `ranked`: complete and audited in every run in scope (docs/method.md 15).
with cells as (
    select model, run, item
    from scrub_cells
    where item_set = (select item_set from contractscrub_scope)
      and model in (select model from contractscrub_scope_models)
      and run in (select run from contractscrub_scope_runs)
),
asked as (
    select model, count(distinct run) as runs, list(distinct run order by run) as runs_covered,
           count(distinct item) as contracts, count(*) as cells
    from cells
    group by model
),
answered as (select model, category, count(*) as calls from scrub_units group by model, category),
missed as (select model, category, count(*) as calls from scrub_missing group by model, category),
per_category as (
    select a.model, k.category, k.position, coalesce(u.calls, 0) as answered, coalesce(m.calls, 0) as missed
    from asked a
    cross join scrub_categories() k
    left join answered u on u.model = a.model and u.category = k.category
    left join missed m on m.model = a.model and m.category = k.category
),
gaps as (
    select model, sum(answered)::bigint as calls_answered, sum(missed)::bigint as missing_calls,
           coalesce(list(category order by position) filter (where missed > 0), []::varchar[]) as missing_categories,
           coalesce(list(category order by position) filter (where answered = 0), []::varchar[])
               as unanswered_categories
    from per_category
    group by model
)
select a.model,
       (select list(run order by run) from contractscrub_scope_runs) as runs_asked,
       a.runs_covered, a.runs, a.contracts, a.cells,
       a.cells * (select count(*) from scrub_categories()) as calls_asked,
       g.calls_answered, g.missing_calls, g.missing_categories, g.unanswered_categories,
       g.missing_calls = 0 as complete,
       g.missing_calls = 0 and a.runs = (select count(*) from contractscrub_scope_runs) as ranked
from asked a
join gaps g using (model)
order by a.model
