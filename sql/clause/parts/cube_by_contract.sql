-- depends_on: instance_outcomes, missing_rows
-- partition_by: model, run
-- Per (model, run, category, contract): the detection and verdict counts of the returned instances and the rows
-- never returned. The matched composite level of `metric_cube` and `contract_counts` add the matched cells to
-- these counts, so a change of the matched cells never recounts instances.
with all_rows as (
    select model, run, contract_id, category, outcome, verdict, mismatch_type from instance_outcomes
    union all
    select model, run, contract_id, category, null, null, null from missing_rows
)
select
    model, run, category, contract_id,
    count(*) filter (where outcome = 'TP') as tp,
    count(*) filter (where outcome = 'FP') as fp,
    count(*) filter (where outcome = 'FN') as fn,
    count(*) filter (where outcome = 'TN') as tn,
    count(*) filter (where outcome = 'TP' and verdict is not null) as judged,
    count(*) filter (where outcome = 'TP' and verdict = 'supported') as supported,
    count(*) filter (where outcome = 'TP' and verdict = 'contradicted') as contradicted,
    count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'extra_condition')
        as n_extra_condition,
    count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'missing_condition')
        as n_missing_condition,
    count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'scope') as n_scope,
    count(*) filter (where outcome is null) as missing_rows
from all_rows
group by model, run, category, contract_id
