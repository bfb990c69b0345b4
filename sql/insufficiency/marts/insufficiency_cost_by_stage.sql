-- depends_on: insufficiency_cost_runs
-- InsufficiencyBench: cost per tested model, stage (`solve`: its responses; `judge`: the scope's judge on them, one
-- row per `role`, identify or explain) and billed model (whose rates apply), over the runs and items in scope. A
-- cost holding a call of unknown cost is unknown (null), never 0; `unknown_cost_calls` counts those calls.
select model, stage, role, billed_model, count(distinct run) as runs, sum(calls) as calls,
       sum(batch_calls) as batch_calls, sum(unknown_cost_calls) as unknown_cost_calls,
       sum(input_tokens) as input_tokens, sum(output_tokens) as output_tokens, sum(cached_tokens) as cached_tokens,
       cost_total(cost_usd, true) as cost_usd
from insufficiency_cost_runs
group by model, stage, role, billed_model
order by model, stage, role nulls first, billed_model
