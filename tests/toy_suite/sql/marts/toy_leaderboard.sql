-- depends_on: toy_units, int_call_costs, toy_scope_models, toy_scope_runs
-- Per model: contracts, parties named and matched, precision, and the calls and cost of its naming.
with usage as (
    select system as model, count(*) as calls, sum(cost_usd) as cost_usd
    from int_call_costs
    where stage = 'toy-parties' and system in (select model from toy_scope_models)
      and run in (select run from toy_scope_runs)
    group by system
)
select u.model, count(distinct u.run) as runs, count(distinct u.unit) as contracts, sum(u.named) as named,
       sum(u.matched) as matched, ratio(sum(u.matched), sum(u.named)) as precision,
       coalesce(any_value(g.calls), 0) as calls, coalesce(any_value(g.cost_usd), 0) as cost_usd
from toy_units u
left join usage g using (model)
group by u.model
order by u.model
