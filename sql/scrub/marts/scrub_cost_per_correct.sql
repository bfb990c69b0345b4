-- depends_on: scrub_cost_runs, scrub_units, scrub_coverage
-- ContractScrub: per model in scope, what all its calls in scope cost per found defect (a gold finding it matched:
-- the TPs of `scrub_units`, full tuples).
-- Null when it has none or any of its calls has an unknown cost (`cost_per`), and null cost where no call was
-- recorded (imported results): nothing was measured.
with cost as (
    select model, sum(calls) as calls, sum(unknown_cost_calls) as unknown_cost_calls,
           cost_total(cost_usd, true) as cost_usd
    from scrub_cost_runs
    group by model
),
correct as (
    select model, sum(tp) as correct from scrub_units group by model
)
select m.model, c.calls, c.unknown_cost_calls, k.correct, 'found defect' as unit,
       c.cost_usd, cost_per(c.cost_usd, k.correct) as cost_per_correct_usd
from (select distinct model from scrub_coverage) m
left join cost c using (model)
left join correct k using (model)
order by m.model
