-- depends_on: cost_stage_runs, leaderboard
-- Per system: what all its calls in scope cost (extraction, the scope's judge, debate roles) per true positive
-- (`correct`: the leaderboard's TPs, pooled over runs). Null when it has no TP or any of its calls has an unknown
-- cost (`cost_per`), and null cost where no call was recorded (imported results): nothing was measured.
with cost as (
    select model, sum(calls) as calls, sum(unknown_cost_calls) as unknown_cost_calls,
           cost_total(cost_usd, true) as cost_usd
    from cost_stage_runs
    group by model
)
select l.model, c.calls, c.unknown_cost_calls, l.tp as correct, 'true positive' as unit,
       c.cost_usd, cost_per(c.cost_usd, l.tp) as cost_per_correct_usd
from leaderboard l
left join cost c using (model)
order by l.model
