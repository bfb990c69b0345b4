-- depends_on: int_call_costs, int_model_prices, insufficiency_scope, insufficiency_scope_models, insufficiency_scope_runs
-- InsufficiencyBench's calls in scope (those `insufficiency_coverage` counts), summed per (tested model, run, stage,
-- role, billed model, day) as the clause suite's `cost_stage_runs`: `solve` the tested model's responses, `judge`
-- the scope's judge on them (`role` identify or explain); each sum of cost unknown (null) when any call in it is,
-- the batch calls' cost beside its interactive equivalent.
with calls as (
    select c.*, c.batch_id is not null as batch,
           case c.stage when 'insufficiency-responses' then 'solve' else 'judge' end as cost_stage,
           case c.stage when 'insufficiency-identify' then 'identify'
                        when 'insufficiency-explain' then 'explain' end as role
    from int_call_costs c
    where (c.stage = 'insufficiency-responses'
           or (c.stage in ('insufficiency-identify', 'insufficiency-explain')
               and c.model = (select judge from insufficiency_scope)))
      and c.system in (select model from insufficiency_scope_models)
      and c.run in (select run from insufficiency_scope_runs)
)
select c.system as model, c.run, c.cost_stage as stage, c.role, c.model as billed_model, left(c.time, 10) as day,
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
left join int_model_prices p on p.name = c.model
group by all
order by model, run, stage, role, billed_model, day
