-- The clause suite's rates (docs/method.md, section 5), defined once; every mart computes them through these.
create or replace macro far(fp, tn) as ratio(fp, fp + tn);
create or replace macro frr(fn, tp) as ratio(fn, fn + tp);
create or replace macro acc(tp, fp, fn, tn) as ratio(tp + tn, tp + fp + fn + tn);
-- The content rates take the counts of the cells the scope's judge labelled (section 5): `judged` TPs (those it
-- decided: supported or contradicted; a TP it left undetermined is in no content figure) and the FPs and FNs of
-- those cells, so a TP, run or contract the judge never saw is in no
-- denominator, and a group it labelled none of has null content figures, never 0.
create or replace macro hal_tp(contradicted, judged) as ratio(contradicted, judged);
create or replace macro hal_gen(contradicted, judged_fp, judged) as ratio(contradicted + judged_fp, judged + judged_fp);
create or replace macro jeq(supported, judged, judged_fn) as ratio(supported, judged + judged_fn);
create or replace macro rdi(n_extra, n_missing, contradicted) as ratio(n_extra - n_missing, contradicted);
-- Whether a (system, run, contract) cell is one the judge labelled: it labelled a TP of the cell, or the cell has
-- none to label and the judge labelled a TP of its run (a run without any TP needs no judge). A cell with TPs it
-- labelled none of, or a TP-less cell of a run it never judged, is outside its cells.
create or replace macro labelled_cell(tp, judged, run_tp, run_judged) as
    (judged > 0 or tp = 0) and (run_judged > 0 or run_tp = 0);
-- The detection and verdict counts of a group of instances (each one's `outcome`, `verdict`, `mismatch_type`, and
-- `labelled`: whether its cell is one the judge labelled), as one struct, written once for the cube's parts and the
-- debate marts (base and debate side alike): the confusion counts, the TPs judged (decided) and left undetermined,
-- the FPs and FNs of the judge's
-- cells, the verdicts and mismatches of the TPs, and `missing_rows`, the instances never returned (no outcome).
create or replace macro outcome_counts(outcome, verdict, mismatch_type, labelled) as {
    tp: count(*) filter (where outcome = 'TP'),
    fp: count(*) filter (where outcome = 'FP'),
    fn: count(*) filter (where outcome = 'FN'),
    tn: count(*) filter (where outcome = 'TN'),
    judged: count(*) filter (where outcome = 'TP' and verdict in ('supported', 'contradicted')),
    undetermined: count(*) filter (where outcome = 'TP' and verdict = 'undetermined'),
    judged_fp: count(*) filter (where outcome = 'FP' and labelled),
    judged_fn: count(*) filter (where outcome = 'FN' and labelled),
    supported: count(*) filter (where outcome = 'TP' and verdict = 'supported'),
    contradicted: count(*) filter (where outcome = 'TP' and verdict = 'contradicted'),
    n_missing_condition:
        count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'missing_condition'),
    n_extra_condition:
        count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'extra_condition'),
    n_scope: count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'scope'),
    missing_rows: count(*) filter (where outcome is null)
};
-- The instances the cube's parts count: every returned one (`outcomes`: instance_outcomes) with whether its cell is
-- one of the judge's (`cells`: judge_cells), and every one never returned (`missing`: missing_rows), which has no
-- outcome, verdict or mismatch and is in no judged cell. (Relations are named, read through `query_table`, so a
-- refresh's partition views of them are what is read.)
create or replace macro cube_rows(outcomes, cells, missing) as table
    select o.model, o.run, o.category, o.contract_id, o.clause_type, o.outcome, o.verdict, o.mismatch_type, j.labelled
    from query_table(outcomes) o
    join query_table(cells) j on j.model = o.model and j.run = o.run and j.contract_id = o.contract_id
    union all
    select model, run, category, contract_id, clause_type, null, null, null, false from query_table(missing);
-- The debate's counts per group of debated instances (`instances`: debate_instances; `keys`: the names of its
-- columns to group by, which come out in its column order), base and debate side each an `outcome_counts` struct
-- (`base`, `debate`) on the cells the judge labelled on that side (`cells`: debate_judge_cells), beside how the
-- debates went (mean rounds, share settled in round 1, consensus and flip rates) and what a decision cost (calls
-- and tokens).
create or replace macro debate_counts(instances, cells, keys) as table
    select
        columns(lambda c: list_contains(keys, c)),
        count(*) as decisions,
        outcome_counts(outcome_base, verdict_base, mismatch_base, labelled_base) as base,
        outcome_counts(outcome_debate, verdict_debate, mismatch_debate, labelled_debate) as debate,
        avg(rounds) as mean_rounds,
        avg(case when rounds = 1 then 1.0 else 0.0 end) as share_round1,
        avg(case when consensus then 1.0 else 0.0 end) as consensus_rate,
        avg(case when flipped then 1.0 else 0.0 end) as flip_rate,
        avg(calls) as calls_per_decision,
        avg(input_tokens + output_tokens) as tokens_per_decision
    from (select i.*, j.labelled_base, j.labelled_debate
          from query_table(instances) i
          join query_table(cells) j
              on j.backbone = i.backbone and j.run = i.run and j.subset is not distinct from i.subset
             and j.config = i.config and j.contract_id = i.contract_id)
    group by all;
