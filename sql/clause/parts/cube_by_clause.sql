-- depends_on: instance_outcomes, missing_rows, judge_cells
-- partition_by: model, run
-- Per (model, run, clause type): the detection and verdict counts of the returned instances and the rows never
-- returned, from which `metric_cube` rolls up every grain that does not depend on the matched cells. `judged_fp`
-- and `judged_fn` are the FPs and FNs of the cells the scope's judge labelled (`judge_cells`), the content rates'.
with all_rows as (
    select o.model, o.run, o.category, o.clause_type, o.outcome, o.verdict, o.mismatch_type, j.labelled
    from instance_outcomes o
    join judge_cells j on j.model = o.model and j.run = o.run and j.contract_id = o.contract_id
    union all
    select model, run, category, clause_type, null, null, null, false from missing_rows
)
select
    model, run, category, clause_type,
    count(*) filter (where outcome = 'TP') as tp,
    count(*) filter (where outcome = 'FP') as fp,
    count(*) filter (where outcome = 'FN') as fn,
    count(*) filter (where outcome = 'TN') as tn,
    count(*) filter (where outcome = 'TP' and verdict is not null) as judged,
    count(*) filter (where outcome = 'FP' and labelled) as judged_fp,
    count(*) filter (where outcome = 'FN' and labelled) as judged_fn,
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
