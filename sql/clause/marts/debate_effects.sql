-- depends_on: debate_instances, debate_judge_cells
-- The debate's effect per (backbone, run, subset, configuration kind), base versus debate on the same instances:
-- false positives, misses, contradicted true positives, FAR, FRR, HalGen and RDI before and after (a debate that
-- removes fabrications can also remove true clauses), how debates went (mean
-- rounds, share settled in round 1, consensus and flip rates) and what a decision cost (calls and tokens,
-- reused calls at their recorded tokens). Rates are null where their denominator is zero, HalGen on the cells the
-- report's judge labelled (`debate_judge_cells`), null where it labelled none.
select
    backbone, run, subset, config, decisions, base.fp as fp_base, debate.fp as fp_debate, base.fn as fn_base,
    debate.fn as fn_debate, base.contradicted as contradicted_base, debate.contradicted as contradicted_debate,
    far(base.fp, base.tn) as far_base, far(debate.fp, debate.tn) as far_debate,
    frr(base.fn, base.tp) as frr_base, frr(debate.fn, debate.tp) as frr_debate,
    hal_gen(base.contradicted, base.judged_fp, base.judged) as hal_gen_base,
    hal_gen(debate.contradicted, debate.judged_fp, debate.judged) as hal_gen_debate,
    rdi(base.n_extra_condition, base.n_missing_condition, base.contradicted) as rdi_base,
    rdi(debate.n_extra_condition, debate.n_missing_condition, debate.contradicted) as rdi_debate,
    mean_rounds, share_round1, consensus_rate, flip_rate, calls_per_decision, tokens_per_decision
from debate_counts(debate_instances, debate_judge_cells, ['backbone', 'run', 'subset', 'config'])
order by backbone, run, subset, config
