-- depends_on: instance_outcomes, missing_rows, judge_cells
-- partition_by: model, run
-- Per (model, run, category, contract): the detection and verdict counts of the returned instances and the rows
-- never returned. The matched composite level of `metric_cube` and `contract_counts` add the matched cells to
-- these counts, so a change of the matched cells never recounts instances. `judged_fp` and `judged_fn` are the
-- cell's FPs and FNs when it is one of the judge's cells (`judge_cells`), else 0.
select model, run, category, contract_id, unnest(outcome_counts(outcome, verdict, mismatch_type, labelled))
from cube_rows(instance_outcomes, judge_cells, missing_rows)
group by model, run, category, contract_id
