-- depends_on: scrub_units, contractscrub_scope_models
-- Per model and category, pooled over the contracts and runs in scope (multiset matching per call, summed):
-- R = TP/(TP+FN), P = TP/(TP+FP), F1 = 2TP/(2TP+FP+FN), each null where its denominator is 0; and the same
-- for the term-only ablation (locations left out; not defined for inconsistent language).
with pooled as (
    select model, category, sum(gold) as gold, sum(predicted) as predicted, sum(tp) as tp, sum(fp) as fp,
           sum(fn) as fn, sum(terms_gold) as terms_gold, sum(terms_tp) as terms_tp, sum(terms_fp) as terms_fp,
           sum(terms_fn) as terms_fn
    from scrub_units
    group by model, category
)
select m.model, k.category, k.position, k.has_terms,
       coalesce(p.gold, 0)::bigint as gold, coalesce(p.predicted, 0)::bigint as predicted,
       coalesce(p.tp, 0)::bigint as tp, coalesce(p.fp, 0)::bigint as fp, coalesce(p.fn, 0)::bigint as fn,
       recall_rate(p.tp, p.fn) as recall, precision_rate(p.tp, p.fp) as precision,
       f1_score(p.tp, p.fp, p.fn) as f1,
       p.terms_gold, p.terms_tp, p.terms_fp, p.terms_fn,
       recall_rate(p.terms_tp, p.terms_fn) as terms_recall,
       precision_rate(p.terms_tp, p.terms_fp) as terms_precision,
       f1_score(p.terms_tp, p.terms_fp, p.terms_fn) as terms_f1
from contractscrub_scope_models m
cross join scrub_categories() k
left join pooled p on p.model = m.model and p.category = k.category
order by m.model, k.position
