-- depends_on: instance_outcomes, missing_rows, judge_cells
-- partition_by: model, run
-- Per (model, run, clause type): the detection and verdict counts of the returned instances and the rows never
-- returned, from which `metric_cube` rolls up every grain that does not depend on the matched cells. `judged_fp`
-- and `judged_fn` are the FPs and FNs of the cells the scope's judge labelled (`judge_cells`), the content rates'.
select model, run, category, clause_type, unnest(outcome_counts(outcome, verdict, mismatch_type, labelled))
from cube_rows(instance_outcomes, judge_cells, missing_rows)
group by model, run, category, clause_type
