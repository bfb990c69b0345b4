-- depends_on: scrub_by_category, scrub_coverage, scrub_missing, scrub_usage
-- Per model: overall R, P and F1 as the unweighted mean over the 9 categories of the per-category figures (each
-- over the categories where it exists; overall F1 is the mean of the per-category F1s), the same over the 8
-- term-only categories, the missing calls and the cost of the calls. The recall interval is added by the report
-- (a contract-cluster bootstrap, scoring.cluster_recall_intervals).
with overall as (
    select model, avg(recall) as recall, avg(precision) as precision, avg(f1) as f1,
           avg(terms_recall) filter (where has_terms) as terms_only_recall,
           avg(terms_precision) filter (where has_terms) as terms_only_precision,
           avg(terms_f1) filter (where has_terms) as terms_only_f1
    from scrub_by_category
    group by model
),
missing as (select model, count(*) as missing_calls from scrub_missing group by model)
select v.model, v.runs, v.contracts, o.recall, o.precision, o.f1, o.terms_only_recall, o.terms_only_precision,
       o.terms_only_f1, coalesce(m.missing_calls, 0) as missing_calls, u.cost_usd
from scrub_coverage v
left join overall o using (model)
left join missing m using (model)
left join scrub_usage u using (model)
order by o.recall desc nulls last, v.model
