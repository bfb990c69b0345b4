-- depends_on: metric_cube, cube_by_cell, matched_cells, scope_coverage
-- Composite score over the matched cells only (every model on the same instances): rank each metric among
-- the compared models (FAR, FRR, HalGen lower is better; Acc, JEq higher is better; ties share the average
-- rank), then take the weighted mean rank per scheme. A metric that is null for any model is dropped from
-- every scheme (weights renormalise); a scheme left with no weight has a null score. The content metrics (HalGen,
-- JEq) rank only when the scope's judge labelled every matched cell of every ranked system: otherwise each would
-- rest on different cells, and they are dropped like a null.
with systems as (
    select model, far, frr, acc, hal_gen, jeq from metric_cube where level = 'model_matched'
),
judged_everywhere as (
    select coalesce(bool_and(c.labelled), false) as complete
    from cube_by_cell c
    semi join matched_cells m on m.contract_id = c.contract_id and m.run = c.run
    where c.model in (select model from scope_coverage where ranked)
),
long as (
    select * from systems unpivot include nulls (value for metric in (far, frr, acc, hal_gen, jeq))
),
usable as (
    select metric from long
    group by metric
    having count(*) = count(value) and (metric not in ('hal_gen', 'jeq') or (select complete from judged_everywhere))
),
oriented as (
    select l.model, l.metric, case when l.metric in ('acc', 'jeq') then -l.value else l.value end as cost
    from long l semi join usable u on u.metric = l.metric
),
ranked as (
    select model, metric,
           rank() over (partition by metric order by cost) + (count(*) over (partition by metric, cost) - 1) / 2.0
               as metric_rank
    from oriented
),
schemes (position, scheme, far, frr, acc, hal_gen, jeq) as (
    values (1, 'equal', 1, 1, 1, 1, 1), (2, 'fp_heavy', 2, 1, 1, 2, 1), (3, 'recall_heavy', 1, 2, 1, 1, 2),
           (4, 'halluc_only', 0, 0, 0, 1, 0), (5, 'detection_only', 1, 1, 1, 0, 0)
),
weights as (
    select scheme, metric, weight
    from (select scheme, far, frr, acc, hal_gen, jeq from schemes)
    unpivot (weight for metric in (far, frr, acc, hal_gen, jeq))
),
scores as (
    select s.position, s.scheme, m.model,
           ratio(sum(w.weight * r.metric_rank), sum(w.weight)) as score
    from schemes s
    cross join (select model from systems) m
    left join weights w on w.scheme = s.scheme and w.metric in (select metric from usable)
    left join ranked r on r.model = m.model and r.metric = w.metric
    group by s.position, s.scheme, m.model
)
select scheme, model, score,
       case when score is not null then rank() over (partition by scheme order by score) end as rank
from scores
order by position, rank nulls last, model
