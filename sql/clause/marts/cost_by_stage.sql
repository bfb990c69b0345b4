-- depends_on: cost_stage_runs
-- Cost per audited system, stage (`solve`: its extraction; `judge`: the scope's judge on it; `debate`: a debate
-- system's role calls, one row per `role`) and billed model (whose rates apply), over the runs and contracts in
-- scope. A cost holding a call of unknown cost is unknown (null), never 0; `unknown_cost_calls` counts those calls.
select * from cost_by_stage_of('cost_stage_runs')
order by model, stage, role nulls first, billed_model
