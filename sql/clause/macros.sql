-- The clause suite's rates (docs/method.md, section 5), defined once; every mart computes them through these.
create or replace macro far(fp, tn) as ratio(fp, fp + tn);
create or replace macro frr(fn, tp) as ratio(fn, fn + tp);
create or replace macro acc(tp, fp, fn, tn) as ratio(tp + tn, tp + fp + fn + tn);
-- The content rates take the counts of the cells the scope's judge labelled (section 5): `judged` TPs (those it
-- labelled) and the FPs and FNs of those cells, so a TP, run or contract the judge never saw is in no
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
