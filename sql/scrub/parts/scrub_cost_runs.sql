-- depends_on: int_call_costs, int_model_prices, stg_scrub_findings_recorded, stg_scrub_findings_failed, contractscrub_scope, contractscrub_scope_models, contractscrub_scope_runs
-- ContractScrub's calls for the item set in scope (those `scrub_usage` counts: a model's scrubbing, completed or
-- failed), summed per (model, run, billed model, day) as the clause suite's `cost_stage_runs`: stage `solve`, each
-- sum of cost unknown (null) when any call in it is, the batch calls' cost beside its interactive equivalent.
with keys as (
    select model, run, request_key from stg_scrub_findings_recorded
    where item_set = (select item_set from contractscrub_scope)
    union
    select model, run, request_key from stg_scrub_findings_failed
    where item_set = (select item_set from contractscrub_scope)
),
calls as (
    select c.* exclude (model), c.system as model, 'solve' as stage, null::varchar as role, c.model as billed_model,
           c.batch_id is not null as batch
    from int_call_costs c
    semi join keys k on k.model = c.system and k.run = c.run and k.request_key = c.request_key
    where c.stage = 'scrub'
      and c.system in (select model from contractscrub_scope_models)
      and c.run in (select run from contractscrub_scope_runs)
)
select * from cost_runs(calls)
order by model, run, stage, role, billed_model, day
