-- depends_on: int_call_costs, stg_scrub_findings_recorded, stg_scrub_findings_failed, scrub_coverage, contractscrub_scope, contractscrub_scope_models, contractscrub_scope_runs
-- Per model: the calls of its scrubbing of the item set in scope (completed and failed, each priced once by
-- int_call_costs), their cost and seconds, and both per contract and run. Null where no call was recorded
-- (findings imported from elsewhere): nothing was measured. The calls are `scrub_scope_calls`.
with calls as (
    select c.system as model, count(*) as calls, count(*) filter (where not c.completed) as failed_calls,
           cost_total(c.cost_usd, true) as cost_usd, sum(c.latency_s) as seconds
    from scrub_scope_calls(int_call_costs) c
    group by c.system
)
select v.model, v.runs, v.contracts, k.calls, k.failed_calls, k.cost_usd, k.seconds,
       k.cost_usd / v.cells as cost_per_contract_usd, k.seconds / v.cells as seconds_per_contract
from scrub_coverage v
left join calls k using (model)
order by v.model
