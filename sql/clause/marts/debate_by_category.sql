-- depends_on: debate_instances, debate_judge_cells
-- The debate's effect per category, base versus debate on the same instances: the change in FAR and in HalGen
-- (debate minus base), the shift in RDI and the share of decisions the debate flipped, per (backbone, run,
-- subset, configuration kind). A change is null when either side is undefined (HalGen on the cells the report's
-- judge labelled, `debate_judge_cells`; null where it labelled none).
with counts as (
    select
        backbone, run, subset, config, category,
        count(*) as decisions,
        count(*) filter (where outcome_base = 'TP') as tp_base,
        count(*) filter (where outcome_base = 'FP') as fp_base,
        count(*) filter (where outcome_base = 'TN') as tn_base,
        count(*) filter (where outcome_base = 'TP' and verdict_base is not null) as judged_base,
        count(*) filter (where outcome_base = 'FP' and labelled_base) as judged_fp_base,
        count(*) filter (where verdict_base = 'contradicted') as contradicted_base,
        count(*) filter (where verdict_base = 'contradicted' and mismatch_base = 'extra_condition') as extra_base,
        count(*) filter (where verdict_base = 'contradicted' and mismatch_base = 'missing_condition') as missing_base,
        count(*) filter (where outcome_debate = 'TP') as tp_debate,
        count(*) filter (where outcome_debate = 'FP') as fp_debate,
        count(*) filter (where outcome_debate = 'TN') as tn_debate,
        count(*) filter (where outcome_debate = 'TP' and verdict_debate is not null) as judged_debate,
        count(*) filter (where outcome_debate = 'FP' and labelled_debate) as judged_fp_debate,
        count(*) filter (where verdict_debate = 'contradicted') as contradicted_debate,
        count(*) filter (where verdict_debate = 'contradicted' and mismatch_debate = 'extra_condition')
            as extra_debate,
        count(*) filter (where verdict_debate = 'contradicted' and mismatch_debate = 'missing_condition')
            as missing_debate,
        avg(case when flipped then 1.0 else 0.0 end) as flip_rate
    from (select i.*, j.labelled_base, j.labelled_debate
          from debate_instances i
          join debate_judge_cells j
              on j.backbone = i.backbone and j.run = i.run and j.subset is not distinct from i.subset
             and j.config = i.config and j.contract_id = i.contract_id)
    group by backbone, run, subset, config, category
)
select
    backbone, run, subset, config, category,
    far(fp_debate, tn_debate) - far(fp_base, tn_base) as delta_far,
    hal_gen(contradicted_debate, judged_fp_debate, judged_debate)
        - hal_gen(contradicted_base, judged_fp_base, judged_base)
        as delta_hal_gen,
    rdi(extra_debate, missing_debate, contradicted_debate) - rdi(extra_base, missing_base, contradicted_base)
        as rdi_shift,
    flip_rate
from counts
order by backbone, run, subset, config, category
