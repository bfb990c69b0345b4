-- depends_on: scrub_cost_runs
-- ContractScrub: cost per model, stage (`solve`: its scrubbing) and billed model (whose rates apply), over the runs
-- and items in scope. A cost holding a call of unknown cost is unknown (null), never 0; `unknown_cost_calls` counts
-- those calls.
select * from cost_by_stage_of('scrub_cost_runs')
order by model, stage, role nulls first, billed_model
