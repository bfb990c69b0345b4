-- depends_on: insufficiency_cells, insufficiency_missing, insufficiency_units, int_call_costs, insufficiency_scope, insufficiency_scope_models, insufficiency_scope_runs
-- Per model in scope: the cells it was asked for, responses and judgments missing, identified names dropped as not
-- gold, and the calls and cost of its answers and of the judge's calls on them (every call priced once).
with cells as (
    select model, count(distinct (run, item)) as cells, count(distinct run) as runs
    from insufficiency_cells
    where item_set = (select item_set from insufficiency_scope)
      and model in (select model from insufficiency_scope_models) and run in (select run from insufficiency_scope_runs)
    group by model
),
missing as (
    select model, count(*) filter (where missing = 'response') as missing_responses,
           count(*) filter (where missing = 'response' and reason is not null) as failed_responses,
           count(*) filter (where missing = 'judgment') as missing_judgments
    from insufficiency_missing
    group by model
),
judged as (
    select model, count(*) as judged, sum(dropped) as dropped_identified from insufficiency_units group by model
),
usage as (
    select system as tested,
           count(*) filter (where stage = 'insufficiency-responses') as response_calls,
           count(*) filter (where stage in ('insufficiency-identify', 'insufficiency-explain')
                                  and model = (select judge from insufficiency_scope)) as judge_calls,
           cost_total(cost_usd, stage = 'insufficiency-responses') as response_cost_usd,
           cost_total(cost_usd, stage in ('insufficiency-identify', 'insufficiency-explain')
                                and model = (select judge from insufficiency_scope)) as judge_cost_usd
    from int_call_costs
    where stage in ('insufficiency-responses', 'insufficiency-identify', 'insufficiency-explain')
      and run in (select run from insufficiency_scope_runs)
    group by system
)
select c.model, c.runs, c.cells, c.cells - coalesce(m.missing_responses, 0) as responses,
       coalesce(m.missing_responses, 0) as missing_responses, coalesce(m.failed_responses, 0) as failed_responses,
       coalesce(j.judged, 0) as judged, coalesce(m.missing_judgments, 0) as missing_judgments,
       coalesce(j.dropped_identified, 0) as dropped_identified,
       coalesce(u.response_calls, 0) as response_calls, coalesce(u.judge_calls, 0) as judge_calls,
       -- no call made cost nothing; a call of unknown cost leaves the total unknown (null)
       case when coalesce(u.response_calls, 0) = 0 then 0 else u.response_cost_usd end as response_cost_usd,
       case when coalesce(u.judge_calls, 0) = 0 then 0 else u.judge_cost_usd end as judge_cost_usd
from cells c
left join missing m using (model)
left join judged j using (model)
left join usage u on u.tested = c.model
order by c.model
