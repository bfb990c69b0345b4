-- depends_on: int_call_costs, int_model_prices, stg_scrub_findings_recorded, stg_scrub_findings_failed, contractscrub_scope, contractscrub_scope_models, contractscrub_scope_runs
-- ContractScrub's calls for the item set in scope (those `scrub_usage` counts: a model's scrubbing, completed or
-- failed), summed per (model, run, billed model, day) as the clause suite's `cost_stage_runs`: stage `solve`, each
-- sum of cost unknown (null) when any call in it is, the batch calls' cost beside its interactive equivalent.
with keys as (
    select model, run, request_key from stg_scrub_findings_recorded
    where item_set = (select item_set from contractscrub_scope)
    union
    select model, run, request_key from stg_scrub_findings_failed
    where item_set = (select item_set from contractscrub_scope)
),
calls as (
    select c.*, c.batch_id is not null as batch
    from int_call_costs c
    semi join keys k on k.model = c.system and k.run = c.run and k.request_key = c.request_key
    where c.stage = 'scrub'
      and c.system in (select model from contractscrub_scope_models)
      and c.run in (select run from contractscrub_scope_runs)
)
select c.system as model, c.run, 'solve' as stage, null::varchar as role, c.model as billed_model,
       left(c.time, 10) as day,
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
