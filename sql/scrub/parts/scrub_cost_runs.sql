-- depends_on: int_call_costs, int_model_prices, stg_scrub_findings_recorded, stg_scrub_findings_failed, contractscrub_scope, contractscrub_scope_models, contractscrub_scope_runs
-- ContractScrub's calls for the item set in scope (`scrub_scope_calls`, those `scrub_usage` counts: a model's
-- scrubbing, completed or failed), summed per (model, run, billed model, day) as the clause suite's
-- `cost_stage_runs`: stage `solve`, each sum of cost unknown (null) when any call in it is, the batch calls' cost
-- beside its interactive equivalent.
with calls as (
    select c.* exclude (model), c.system as model, 'solve' as stage, null::varchar as role, c.model as billed_model,
           c.batch_id is not null as batch
    from scrub_scope_calls(int_call_costs) c
)
select * from cost_runs(calls)
order by model, run, stage, role, billed_model, day
