-- depends_on: stg_usage
-- Calls, tokens and cost per (model, run), from each billed model's registered prices (USD per
-- million tokens; cached input at the cached price).
with prices as (
    select
        json_extract_string(payload, '$.name') as name,
        cast(json_extract(payload, '$.price.input_per_mtok') as double) as input_price,
        cast(json_extract(payload, '$.price.output_per_mtok') as double) as output_price,
        cast(json_extract(payload, '$.price.cached_input_per_mtok') as double) as cached_price
    from events
    where type = 'model.registered'
    qualify row_number() over (partition by name order by time desc, seq desc) = 1
),
priced as (
    select u.*,
           ((u.input_tokens - u.cached_tokens) * coalesce(p.input_price, 0)
            + u.cached_tokens * coalesce(p.cached_price, 0)
            + u.output_tokens * coalesce(p.output_price, 0)) / 1e6 as cost_usd
    from stg_usage u
    left join prices p on p.name = u.billed_model
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
