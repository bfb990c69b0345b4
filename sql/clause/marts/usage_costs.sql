-- depends_on: int_usage, audit_scope, scope
-- partition_by: model, run
-- Calls, tokens and cost per (model, run) for the contracts in scope, each call at its cost (`int_call_costs`; a total
-- with a call of unknown cost is unknown). Judge calls count for the report's judge only, so auditing with a
-- second judge never changes the default report.
with calls as (
    select u.*
    from int_usage u
    semi join audit_scope s on s.model = u.model and s.run = u.run and s.contract_id = u.contract_id
    where u.stage = 'extraction' or u.judge = (select judge from scope)
)
select
    model, run,
    count(*) filter (where stage = 'extraction') as extraction_calls,
    count(*) filter (where stage = 'judge') as judge_calls,
    sum(input_tokens) as input_tokens,
    sum(output_tokens) as output_tokens,
    sum(cached_tokens) as cached_tokens,
    cost_total(cost_usd, stage = 'extraction') as extraction_cost_usd,
    cost_total(cost_usd, stage = 'judge') as judge_cost_usd,
    cost_total(cost_usd, true) as cost_usd
from calls
group by model, run
order by model, run
