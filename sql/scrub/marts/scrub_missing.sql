-- depends_on: scrub_cells, scrub_units, int_scrub_failures, contractscrub_scope, contractscrub_scope_models, contractscrub_scope_runs
-- Every (model, run, contract, category) in scope without an answer: a missing call, left out of every count
-- (never read as an empty answer), with the reason its latest failure recorded (null: never answered).
select c.model, c.run, c.item as contract_id, k.category, k.position, f.reason
from scrub_cells c
cross join scrub_categories() k
left join int_scrub_failures f on f.model = c.model and f.run = c.run and f.item_set = c.item_set
    and f.contract_id = c.item and f.category = k.category
where c.item_set = (select item_set from contractscrub_scope)
  and c.model in (select model from contractscrub_scope_models)
  and c.run in (select run from contractscrub_scope_runs)
  and not exists (select 1 from scrub_units u where u.model = c.model and u.run = c.run and u.unit = c.item
                  and u.category = k.category)
order by c.model, c.run, c.item, k.position
