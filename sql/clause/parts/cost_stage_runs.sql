-- depends_on: int_usage, int_model_prices, audit_scope, scope
-- partition_by: model, run
-- The clause suite's calls for the contracts in scope (those `usage_costs` counts), summed per (system, run, stage,
-- role, billed model, day): `solve` the system's extraction, `judge` the scope's judge on it, `debate` a debate
-- system's role calls (one `role` each). Each sum of cost is unknown (null) when any call in it is
-- (`cost_total`); the batch calls' cost beside what they would have cost at the registered interactive rates.
with calls as (
    select u.*
    from int_usage u
    semi join audit_scope s on s.model = u.model and s.run = u.run and s.contract_id = u.contract_id
    where u.stage = 'extraction' or u.judge = (select judge from scope)
)
select c.model, c.run,
       case when c.role is not null then 'debate' when c.stage = 'judge' then 'judge' else 'solve' end as stage,
       c.role, c.billed_model, left(c.time, 10) as day,
       count(*) as calls, count(*) filter (where c.batch) as batch_calls,
       count(*) filter (where c.cost_usd is null) as unknown_cost_calls,
       sum(c.input_tokens) as input_tokens, sum(c.output_tokens) as output_tokens,
       sum(c.cached_tokens) as cached_tokens,
       cost_total(c.cost_usd, true) as cost_usd,
       cost_total(c.cost_usd, c.batch) as batch_cost_usd,
       cost_total(interactive_cost(c.cost_usd, c.price_source, c.input_tokens, c.cached_tokens, c.cache_write_tokens,
                                   c.output_tokens, p.input_price, p.cached_price, p.cache_write_price, p.output_price),
                  c.batch) as batch_interactive_cost_usd
from calls c
left join int_model_prices p on p.name = c.billed_model
group by all
order by model, run, stage, role, billed_model, day
