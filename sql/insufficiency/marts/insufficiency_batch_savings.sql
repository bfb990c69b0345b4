-- depends_on: insufficiency_cost_runs
-- InsufficiencyBench: where a provider's batch API served calls in scope, per tested model and billed model, what
-- the batch calls cost, what they would have cost at the model's registered interactive rates (`interactive_cost`),
-- and the saving. Unknown (null) wherever a batch call's cost is.
with batch as (
    select model, billed_model, sum(batch_calls) as batch_calls,
           cost_total(batch_cost_usd, batch_calls > 0) as batch_cost_usd,
           cost_total(batch_interactive_cost_usd, batch_calls > 0) as interactive_cost_usd
    from insufficiency_cost_runs
    where batch_calls > 0
    group by model, billed_model
)
select model, billed_model, batch_calls, batch_cost_usd, interactive_cost_usd,
       interactive_cost_usd - batch_cost_usd as saved_usd,
       ratio(interactive_cost_usd - batch_cost_usd, interactive_cost_usd) as saved_share
from batch
order by model, billed_model
