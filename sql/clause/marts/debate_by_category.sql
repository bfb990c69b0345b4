-- depends_on: debate_instances
-- The debate's effect per category, base versus debate on the same instances: the change in FAR and in HalGen
-- (debate minus base), the shift in RDI and the share of decisions the debate flipped, per (backbone, run,
-- subset, configuration kind). A change is null when either side is undefined (HalGen also where the report's
-- judge labelled none of the TPs).
with counts as (
    select
        backbone, run, subset, config, category,
        count(*) as decisions,
        count(*) filter (where outcome_base = 'TP') as tp_base,
        count(*) filter (where outcome_base = 'FP') as fp_base,
        count(*) filter (where outcome_base = 'TN') as tn_base,
        count(*) filter (where outcome_base = 'TP' and verdict_base is not null) as judged_base,
        count(*) filter (where verdict_base = 'contradicted') as contradicted_base,
        count(*) filter (where verdict_base = 'contradicted' and mismatch_base = 'extra_condition') as extra_base,
        count(*) filter (where verdict_base = 'contradicted' and mismatch_base = 'missing_condition') as missing_base,
        count(*) filter (where outcome_debate = 'TP') as tp_debate,
        count(*) filter (where outcome_debate = 'FP') as fp_debate,
        count(*) filter (where outcome_debate = 'TN') as tn_debate,
        count(*) filter (where outcome_debate = 'TP' and verdict_debate is not null) as judged_debate,
        count(*) filter (where verdict_debate = 'contradicted') as contradicted_debate,
        count(*) filter (where verdict_debate = 'contradicted' and mismatch_debate = 'extra_condition')
            as extra_debate,
        count(*) filter (where verdict_debate = 'contradicted' and mismatch_debate = 'missing_condition')
            as missing_debate,
        avg(case when flipped then 1.0 else 0.0 end) as flip_rate
    from debate_instances
    group by backbone, run, subset, config, category
)
select
    backbone, run, subset, config, category,
    far(fp_debate, tn_debate) - far(fp_base, tn_base) as delta_far,
    hal_gen(contradicted_debate, fp_debate, judged_tp(tp_debate, judged_debate))
        - hal_gen(contradicted_base, fp_base, judged_tp(tp_base, judged_base))
        as delta_hal_gen,
    rdi(extra_debate, missing_debate, contradicted_debate) - rdi(extra_base, missing_base, contradicted_base)
        as rdi_shift,
    flip_rate
from counts
order by backbone, run, subset, config, category
