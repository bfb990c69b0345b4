-- depends_on: scrub_cells, contractscrub_scope, contractscrub_scope_models, contractscrub_scope_runs
-- Per model in scope: the runs and contracts it was asked to scrub (nine calls each).
select model, count(distinct run) as runs, count(distinct item) as contracts, count(*) as cells
from scrub_cells
where item_set = (select item_set from contractscrub_scope)
  and model in (select model from contractscrub_scope_models)
  and run in (select run from contractscrub_scope_runs)
group by model
