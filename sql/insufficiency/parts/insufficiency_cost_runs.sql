-- depends_on: int_call_costs, int_model_prices, insufficiency_scope, insufficiency_scope_models, insufficiency_scope_runs
-- InsufficiencyBench's calls in scope (those `insufficiency_coverage` counts), summed per (tested model, run, stage,
-- role, billed model, day) as the clause suite's `cost_stage_runs`: `solve` the tested model's responses, `judge`
-- the scope's judge on them (`role` identify or explain); each sum of cost unknown (null) when any call in it is,
-- the batch calls' cost beside its interactive equivalent.
with calls as (
    select c.* exclude (model, stage), c.system as model, c.model as billed_model, c.batch_id is not null as batch,
           case c.stage when 'insufficiency-responses' then 'solve' else 'judge' end as stage,
           case c.stage when 'insufficiency-identify' then 'identify'
                        when 'insufficiency-explain' then 'explain' end as role
    from int_call_costs c
    where (c.stage = 'insufficiency-responses'
           or (c.stage in ('insufficiency-identify', 'insufficiency-explain')
               and c.model = (select judge from insufficiency_scope)))
      and c.system in (select model from insufficiency_scope_models)
      and c.run in (select run from insufficiency_scope_runs)
)
select * from cost_runs(calls)
order by model, run, stage, role, billed_model, day
