-- depends_on: insufficiency_cost_runs, stg_model_registered
-- InsufficiencyBench: for each monitored model (registered with `monitor`), what each run in scope cost, with the
-- days its calls were made. Unknown (null) where a call of the run has an unknown cost.
with latest as (  -- each model's latest registration says whether it is monitored
    select name as model, coalesce(params.monitor, false) as monitored
    from stg_model_registered
    qualify row_number() over (partition by name order by time desc, seq desc) = 1
)
select model, run, min(day) as first_day, max(day) as last_day, sum(calls) as calls,
       sum(unknown_cost_calls) as unknown_cost_calls, cost_total(cost_usd, true) as cost_usd
from insufficiency_cost_runs
where model in (select model from latest where monitored)
group by model, run
order by model, run
