-- depends_on: debate_instances, debate_judge_cells
-- The debate's effect per category, base versus debate on the same instances: the change in FAR and in HalGen
-- (debate minus base), the shift in RDI and the share of decisions the debate flipped, per (backbone, run,
-- subset, configuration kind). A change is null when either side is undefined (HalGen on the cells the report's
-- judge labelled, `debate_judge_cells`; null where it labelled none).
select
    backbone, run, subset, config, category,
    far(debate.fp, debate.tn) - far(base.fp, base.tn) as delta_far,
    hal_gen(debate.contradicted, debate.judged_fp, debate.judged)
        - hal_gen(base.contradicted, base.judged_fp, base.judged)
        as delta_hal_gen,
    rdi(debate.n_extra_condition, debate.n_missing_condition, debate.contradicted)
        - rdi(base.n_extra_condition, base.n_missing_condition, base.contradicted)
        as rdi_shift,
    flip_rate
from debate_counts(debate_instances, debate_judge_cells, ['backbone', 'run', 'subset', 'config', 'category'])
order by backbone, run, subset, config, category
