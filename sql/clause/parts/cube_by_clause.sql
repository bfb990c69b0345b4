-- depends_on: instance_outcomes, missing_rows
-- partition_by: model, run
-- Per (model, run, clause type): the detection and verdict counts of the returned instances and the rows never
-- returned, from which `metric_cube` rolls up every grain that does not depend on the matched cells.
with all_rows as (
    select model, run, category, clause_type, outcome, verdict, mismatch_type from instance_outcomes
    union all
    select model, run, category, clause_type, null, null, null from missing_rows
)
select
    model, run, category, clause_type,
    count(*) filter (where outcome = 'TP') as tp,
    count(*) filter (where outcome = 'FP') as fp,
    count(*) filter (where outcome = 'FN') as fn,
    count(*) filter (where outcome = 'TN') as tn,
    count(*) filter (where outcome = 'TP' and verdict is not null) as judged,
    count(*) filter (where outcome = 'TP' and verdict = 'supported') as supported,
    count(*) filter (where outcome = 'TP' and verdict = 'contradicted') as contradicted,
    count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'missing_condition')
        as n_missing_condition,
    count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'extra_condition')
        as n_extra_condition,
    count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'scope') as n_scope,
    count(*) filter (where outcome is null) as missing_rows
from all_rows
group by model, run, category, clause_type
