-- depends_on: int_usage, audit_scope, scope
-- Calls, tokens and cost per (model, run) for the contracts in scope, each call priced at the registered rates of
-- the model that answered it (`int_call_costs`). Judge calls count for the report's judge only, so auditing with a
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
    sum(cost_usd) filter (where stage = 'extraction') as extraction_cost_usd,
    sum(cost_usd) filter (where stage = 'judge') as judge_cost_usd,
    sum(cost_usd) as cost_usd
from calls
group by model, run
order by model, run
