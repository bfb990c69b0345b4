-- depends_on: int_usage, int_model_prices, audit_scope, scope
-- Calls, tokens and cost per (model, run) for the contracts in scope, at each billed model's registered
-- prices (USD per million tokens; cached input at the cached price). Judge calls count for the report's judge
-- only, so auditing with a second judge never changes the default report.
with priced as (
    select u.*,
           ((u.input_tokens - u.cached_tokens) * coalesce(p.input_price, 0)
            + u.cached_tokens * coalesce(p.cached_price, 0)
            + u.output_tokens * coalesce(p.output_price, 0)) / 1e6 as cost_usd
    from int_usage u
    semi join audit_scope s on s.model = u.model and s.run = u.run and s.contract_id = u.contract_id
    left join int_model_prices p on p.name = u.billed_model
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
from priced
group by model, run
order by model, run
