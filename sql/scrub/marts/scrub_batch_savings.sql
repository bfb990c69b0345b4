-- depends_on: scrub_cost_runs
-- ContractScrub: where a provider's batch API served calls in scope, per model and billed model, what the batch
-- calls cost, what they would have cost at the model's registered interactive rates (`interactive_cost`), and the
-- saving. Unknown (null) wherever a batch call's cost is.
select * from batch_savings_of('scrub_cost_runs')
order by model, billed_model
