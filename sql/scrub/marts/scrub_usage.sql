-- depends_on: int_call_costs, stg_scrub_findings_recorded, stg_scrub_findings_failed, scrub_coverage, contractscrub_scope, contractscrub_scope_models, contractscrub_scope_runs
-- Per model: the calls of its scrubbing of the item set in scope (completed and failed, each priced once by
-- int_call_costs), their cost and seconds, and both per contract and run. Null where no call was recorded
-- (findings imported from elsewhere): nothing was measured.
with keys as (
    select model, run, request_key from stg_scrub_findings_recorded
    where item_set = (select item_set from contractscrub_scope)
    union
    select model, run, request_key from stg_scrub_findings_failed
    where item_set = (select item_set from contractscrub_scope)
),
calls as (
    select c.system as model, count(*) as calls, count(*) filter (where not c.completed) as failed_calls,
           cost_total(c.cost_usd, true) as cost_usd, sum(c.latency_s) as seconds
    from int_call_costs c
    semi join keys k on k.model = c.system and k.run = c.run and k.request_key = c.request_key
    where c.stage = 'scrub'
      and c.system in (select model from contractscrub_scope_models)
      and c.run in (select run from contractscrub_scope_runs)
    group by c.system
)
select v.model, v.runs, v.contracts, k.calls, k.failed_calls, k.cost_usd, k.seconds,
       k.cost_usd / v.cells as cost_per_contract_usd, k.seconds / v.cells as seconds_per_contract
from scrub_coverage v
left join calls k using (model)
order by v.model
