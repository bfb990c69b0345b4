-- depends_on: instance_outcomes, missing_rows, matched_cells, scope_coverage
-- Confusion counts and every rate at each reporting grain, in one pass: model (pooled over runs), run,
-- category, clause type, run x category, and model over the matched cells only (for cross-model ranks; only the
-- systems that cover the matched cells). Missing rows are counted but excluded from every denominator; a zero
-- denominator gives null, and so does a content rate (HalTP, HalGen, JEq) over TPs none of which the report's judge
-- labelled: no verdict is no evidence.
with all_rows as (
    select model, run, contract_id, category, clause_type, outcome, verdict, mismatch_type from instance_outcomes
    union all
    select model, run, contract_id, category, clause_type, null, null, null from missing_rows
),
flagged as (
    select a.*, m.contract_id is not null as matched
    from all_rows a
    left join matched_cells m
        on m.contract_id = a.contract_id and m.run = a.run
       and a.model in (select model from scope_coverage where ranked)
),
counts as (
    select
        case
            when grouping(matched) = 0 then 'model_matched'
            when grouping(clause_type) = 0 then 'clause_type'
            when grouping(run) = 0 and grouping(category) = 0 then 'run_category'
            when grouping(run) = 0 then 'run'
            when grouping(category) = 0 then 'category'
            else 'model'
        end as level,
        model, run, category, clause_type, matched,
        count(distinct run) as runs,
        count(*) filter (where outcome = 'TP') as tp,
        count(*) filter (where outcome = 'FP') as fp,
        count(*) filter (where outcome = 'FN') as fn,
        count(*) filter (where outcome = 'TN') as tn,
        count(*) filter (where outcome = 'TP' and verdict is not null) as judged,
        count(*) filter (where outcome = 'TP' and verdict = 'supported') as supported,
        count(*) filter (where outcome = 'TP' and verdict = 'contradicted') as contradicted,
        count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'missing_condition')
            as n_missing_condition,
        count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'extra_condition')
            as n_extra_condition,
        count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'scope') as n_scope,
        count(*) filter (where outcome is null) as missing_rows
    from flagged
    group by grouping sets ((model), (model, run), (model, category), (model, category, clause_type),
                            (model, run, category), (model, matched))
)
select
    level, model, run, category, clause_type, runs,
    tp + fp + fn + tn as n, tp, fp, fn, tn, judged, supported, contradicted, n_missing_condition,
    n_extra_condition, n_scope, missing_rows,
    far(fp, tn) as far, frr(fn, tp) as frr, acc(tp, fp, fn, tn) as acc,
    hal_tp(contradicted, judged_tp(tp, judged)) as hal_tp,
    hal_gen(contradicted, fp, judged_tp(tp, judged)) as hal_gen, jeq(supported, judged_tp(tp, judged), fn) as jeq,
    rdi(n_extra_condition, n_missing_condition, contradicted) as rdi
from counts
where level <> 'model_matched' or matched
