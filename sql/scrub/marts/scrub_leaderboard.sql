-- depends_on: scrub_by_category, scrub_coverage, scrub_usage
-- Per model: overall R, P and F1 as the unweighted mean over the 9 categories of the per-category figures (each
-- over the categories where it exists; overall F1 is the mean of the per-category F1s), the same over the 8
-- term-only categories, the missing calls and the cost of the calls. Overall figures exist only for a complete
-- model (`scrub_coverage`: every call it was asked answered), null otherwise; the rank is by overall recall among
-- the ranked models (complete, in every run in scope), null for the others, which are listed with their coverage.
-- The recall interval is added by the report (a contract-cluster bootstrap, scoring.cluster_recall_intervals).
with overall as (
    select model, avg(recall) as recall, avg(precision) as precision, avg(f1) as f1,
           avg(terms_recall) filter (where has_terms) as terms_only_recall,
           avg(terms_precision) filter (where has_terms) as terms_only_precision,
           avg(terms_f1) filter (where has_terms) as terms_only_f1
    from scrub_by_category
    group by model
),
board as (
    select v.model, v.complete, v.ranked, v.runs, v.contracts,
           case when v.complete then o.recall end as recall,
           case when v.complete then o.precision end as precision,
           case when v.complete then o.f1 end as f1,
           case when v.complete then o.terms_only_recall end as terms_only_recall,
           case when v.complete then o.terms_only_precision end as terms_only_precision,
           case when v.complete then o.terms_only_f1 end as terms_only_f1,
           v.missing_calls, v.missing_categories, u.cost_usd
    from scrub_coverage v
    left join overall o using (model)
    left join scrub_usage u using (model)
)
select model,
       case when ranked then rank() over (partition by ranked order by recall desc nulls last) end as rank,
       * exclude (model, ranked)
from board
order by rank nulls last, model
