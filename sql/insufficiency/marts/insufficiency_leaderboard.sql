-- depends_on: insufficiency_units, insufficiency_scope
-- Per model under the scope's judge: the seed's figures as means of per-item values over its judged responses
-- (item x run), each over the responses where it is defined (insufficiency_units). F2 | Hedge is the mean F2 of
-- the hedged variants; over-flag the share of base queries with an additional claim. The F2 interval is an
-- item bootstrap computed by the report (lhl_platform.insufficiency.intervals).
select model, (select judge from insufficiency_scope) as judge,
       count(distinct unit) filter (where kind = 'variant') as variants,
       count(distinct unit) filter (where kind = 'base') as base_items,
       avg(f2) as f2, avg(precision) as precision, avg(recall) as recall, avg(hedge) as hedge_rate,
       avg(f2) filter (where hedged) as f2_given_hedge, avg(expl_acc) as expl_acc, avg(safety) as safety,
       avg(over_flag) as over_flag
from insufficiency_units
group by model
order by model
