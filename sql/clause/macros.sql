-- The clause suite's rates (docs/method.md, section 5), defined once; every mart computes them through these.
create or replace macro far(fp, tn) as ratio(fp, fp + tn);
create or replace macro frr(fn, tp) as ratio(fn, fn + tp);
create or replace macro acc(tp, fp, fn, tn) as ratio(tp + tn, tp + fp + fn + tn);
create or replace macro hal_tp(contradicted, tp) as ratio(contradicted, tp);
create or replace macro hal_gen(contradicted, fp, tp) as ratio(contradicted + fp, tp + fp);
create or replace macro jeq(supported, tp, fn) as ratio(supported, tp + fn);
create or replace macro rdi(n_extra, n_missing, contradicted) as ratio(n_extra - n_missing, contradicted);
-- The TPs behind a content rate: null when the report's judge labelled none of them, so HalTP, HalGen and JEq are
-- null rather than 0 where nothing was judged (a judge with no verdicts in scope measured nothing).
create or replace macro judged_tp(tp, judged) as case when tp > 0 and judged = 0 then null else tp end;
