-- depends_on: int_usage, int_model_prices, audit_scope, scope
-- Calls, tokens and cost per (model, run) for the contracts in scope, at each billed model's registered
-- prices (USD per million tokens): input read from the provider's cache at the cached rate, input written to
-- it at the cache-write rate, the rest at the input rate; calls served by a batch API at the batch rates (the
-- batch discount applies to the cache rates too). lhl_platform.progress.cost_usd prices the same way. Judge
-- calls count for the report's judge only, so auditing with a second judge never changes the default report.
with priced as (
    select u.*,
           greatest(u.input_tokens - u.cached_tokens - u.cache_write_tokens, 0) as fresh_tokens,
           case when coalesce(p.input_price, 0) > 0 then p.batch_input_price / p.input_price else 1 end as discount,
           p.input_price, p.output_price, p.cached_price, p.cache_write_price, p.batch_input_price,
           p.batch_output_price
    from int_usage u
    semi join audit_scope s on s.model = u.model and s.run = u.run and s.contract_id = u.contract_id
    left join int_model_prices p on p.name = u.billed_model
    where u.stage = 'extraction' or u.judge = (select judge from scope)
),
costed as (
    select model, run, stage, input_tokens, output_tokens, cached_tokens,
           case when batch then
               (fresh_tokens * coalesce(batch_input_price, 0)
                + (cached_tokens * coalesce(cached_price, 0) + cache_write_tokens * coalesce(cache_write_price, 0))
                  * discount
                + output_tokens * coalesce(batch_output_price, 0)) / 1e6
           else
               (fresh_tokens * coalesce(input_price, 0) + cached_tokens * coalesce(cached_price, 0)
                + cache_write_tokens * coalesce(cache_write_price, 0) + output_tokens * coalesce(output_price, 0)) / 1e6
           end as cost_usd
    from priced
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
from costed
group by model, run
order by model, run
