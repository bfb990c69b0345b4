-- depends_on: debate_instances, debate_judge_cells
-- The debate's effect per (backbone, run, subset, configuration kind), base versus debate on the same instances:
-- false positives, misses, contradicted true positives, FAR, FRR, HalGen and RDI before and after (a debate that
-- removes fabrications can also remove true clauses), how debates went (mean
-- rounds, share settled in round 1, consensus and flip rates) and what a decision cost (calls and tokens,
-- reused calls at their recorded tokens). Rates are null where their denominator is zero, HalGen on the cells the
-- report's judge labelled (`debate_judge_cells`), null where it labelled none.
with counts as (
    select
        backbone, run, subset, config,
        count(*) as decisions,
        count(*) filter (where outcome_base = 'TP') as tp_base,
        count(*) filter (where outcome_base = 'FP') as fp_base,
        count(*) filter (where outcome_base = 'TN') as tn_base,
        count(*) filter (where outcome_base = 'FN') as fn_base,
        count(*) filter (where outcome_base = 'TP' and verdict_base is not null) as judged_base,
        count(*) filter (where outcome_base = 'FP' and labelled_base) as judged_fp_base,
        count(*) filter (where verdict_base = 'contradicted') as contradicted_base,
        count(*) filter (where verdict_base = 'contradicted' and mismatch_base = 'extra_condition') as extra_base,
        count(*) filter (where verdict_base = 'contradicted' and mismatch_base = 'missing_condition') as missing_base,
        count(*) filter (where outcome_debate = 'TP') as tp_debate,
        count(*) filter (where outcome_debate = 'FP') as fp_debate,
        count(*) filter (where outcome_debate = 'TN') as tn_debate,
        count(*) filter (where outcome_debate = 'FN') as fn_debate,
        count(*) filter (where outcome_debate = 'TP' and verdict_debate is not null) as judged_debate,
        count(*) filter (where outcome_debate = 'FP' and labelled_debate) as judged_fp_debate,
        count(*) filter (where verdict_debate = 'contradicted') as contradicted_debate,
        count(*) filter (where verdict_debate = 'contradicted' and mismatch_debate = 'extra_condition')
            as extra_debate,
        count(*) filter (where verdict_debate = 'contradicted' and mismatch_debate = 'missing_condition')
            as missing_debate,
        avg(rounds) as mean_rounds,
        avg(case when rounds = 1 then 1.0 else 0.0 end) as share_round1,
        avg(case when consensus then 1.0 else 0.0 end) as consensus_rate,
        avg(case when flipped then 1.0 else 0.0 end) as flip_rate,
        avg(calls) as calls_per_decision,
        avg(input_tokens + output_tokens) as tokens_per_decision
    from (select i.*, j.labelled_base, j.labelled_debate
          from debate_instances i
          join debate_judge_cells j
              on j.backbone = i.backbone and j.run = i.run and j.subset is not distinct from i.subset
             and j.config = i.config and j.contract_id = i.contract_id)
    group by backbone, run, subset, config
)
select
    backbone, run, subset, config, decisions, fp_base, fp_debate, fn_base, fn_debate, contradicted_base,
    contradicted_debate,
    far(fp_base, tn_base) as far_base, far(fp_debate, tn_debate) as far_debate,
    frr(fn_base, tp_base) as frr_base, frr(fn_debate, tp_debate) as frr_debate,
    hal_gen(contradicted_base, judged_fp_base, judged_base) as hal_gen_base,
    hal_gen(contradicted_debate, judged_fp_debate, judged_debate) as hal_gen_debate,
    rdi(extra_base, missing_base, contradicted_base) as rdi_base,
    rdi(extra_debate, missing_debate, contradicted_debate) as rdi_debate,
    mean_rounds, share_round1, consensus_rate, flip_rate, calls_per_decision, tokens_per_decision
from counts
order by backbone, run, subset, config
