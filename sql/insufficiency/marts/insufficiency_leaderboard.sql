-- depends_on: insufficiency_units, insufficiency_completeness, insufficiency_scope
-- Per model in scope under the scope's judge: the seed's figures as means of per-item values over its judged
-- responses (item x run), each over the responses where it is defined (insufficiency_units). F2 | Hedge is the mean
-- F2 of the hedged variants; over-flag the share of base queries with an additional claim. Only a complete model
-- (every item of the set judged in every run in scope, insufficiency_completeness) has figures: an incomplete one is
-- listed with its counts and null figures, never averaged over what it has, and is not ranked. `rank` orders the
-- complete models by F2 (ties share a rank), all on the same cells. The F2 interval is a base-query bootstrap
-- computed by the report (lhl_platform.insufficiency.intervals).
with figures as (
    select model,
           count(distinct unit) filter (where kind = 'variant') as variants,
           count(distinct unit) filter (where kind = 'base') as base_items,
           avg(f2) as f2, avg(precision) as precision, avg(recall) as recall, avg(hedge) as hedge_rate,
           avg(f2) filter (where hedged) as f2_given_hedge, avg(expl_acc) as expl_acc, avg(safety) as safety,
           avg(over_flag) as over_flag
    from insufficiency_units
    group by model
),
listed as (
    select c.model, coalesce(f.variants, 0) as variants, coalesce(f.base_items, 0) as base_items,
           case when c.complete then f.f2 end as f2, case when c.complete then f.precision end as precision,
           case when c.complete then f.recall end as recall, case when c.complete then f.hedge_rate end as hedge_rate,
           case when c.complete then f.f2_given_hedge end as f2_given_hedge,
           case when c.complete then f.expl_acc end as expl_acc, case when c.complete then f.safety end as safety,
           case when c.complete then f.over_flag end as over_flag,
           c.complete, c.cells, c.judged, c.items, c.runs
    from insufficiency_completeness c
    left join figures f using (model)
)
select model, (select judge from insufficiency_scope) as judge, variants, base_items, f2, precision, recall,
       hedge_rate, f2_given_hedge, expl_acc, safety, over_flag, complete, cells, judged, items, runs,
       case when f2 is not null then rank() over (partition by f2 is not null order by f2 desc) end as rank
from listed
order by rank nulls last, model
