-- depends_on: insufficiency_cost_runs
-- InsufficiencyBench: cost per tested model, stage (`solve`: its responses; `judge`: the scope's judge on them, one
-- row per `role`, identify or explain) and billed model (whose rates apply), over the runs and items in scope. A
-- cost holding a call of unknown cost is unknown (null), never 0; `unknown_cost_calls` counts those calls.
select * from cost_by_stage_of('insufficiency_cost_runs')
order by model, stage, role nulls first, billed_model
