-- depends_on: cube_by_clause, cube_by_cell, matched_cells, scope_coverage
-- Confusion counts and every rate at each reporting grain: model (pooled over runs), run, category, clause type,
-- run x category (rolled up from `cube_by_clause`), and model over the matched cells only, for cross-model ranks
-- (from `cube_by_cell`; only the systems that cover the matched cells). Missing rows are counted but excluded from
-- every denominator; a zero denominator gives null. Detection rates (FAR, FRR, Acc) take every returned instance;
-- content rates (HalTP, HalGen, JEq, RDI) only the cells the scope's judge labelled (`judged`, `judged_fp`,
-- `judged_fn`), so a run or contract it never saw is in no content denominator and one it saw none of is null.
with counts as (
    select
        case
            when grouping(clause_type) = 0 then 'clause_type'
            when grouping(run) = 0 and grouping(category) = 0 then 'run_category'
            when grouping(run) = 0 then 'run'
            when grouping(category) = 0 then 'category'
            else 'model'
        end as level,
        model, run, category, clause_type,
        count(distinct run) as runs,
        sum(tp)::bigint as tp, sum(fp)::bigint as fp, sum(fn)::bigint as fn, sum(tn)::bigint as tn,
        sum(judged)::bigint as judged, sum(judged_fp)::bigint as judged_fp, sum(judged_fn)::bigint as judged_fn,
        sum(supported)::bigint as supported, sum(contradicted)::bigint as contradicted,
        sum(n_missing_condition)::bigint as n_missing_condition, sum(n_extra_condition)::bigint as n_extra_condition,
        sum(n_scope)::bigint as n_scope, sum(missing_rows)::bigint as missing_rows
    from cube_by_clause
    group by grouping sets ((model), (model, run), (model, category), (model, category, clause_type),
                            (model, run, category))
    union all
    select
        'model_matched', c.model, null, null, null,
        count(distinct c.run),
        sum(c.tp)::bigint, sum(c.fp)::bigint, sum(c.fn)::bigint, sum(c.tn)::bigint,
        sum(c.judged)::bigint, sum(c.judged_fp)::bigint, sum(c.judged_fn)::bigint,
        sum(c.supported)::bigint, sum(c.contradicted)::bigint,
        sum(c.n_missing_condition)::bigint, sum(c.n_extra_condition)::bigint,
        sum(c.n_scope)::bigint, sum(c.missing_rows)::bigint
    from cube_by_cell c
    semi join matched_cells m on m.contract_id = c.contract_id and m.run = c.run
    where c.model in (select model from scope_coverage where ranked)
    group by c.model
)
select
    level, model, run, category, clause_type, runs,
    tp + fp + fn + tn as n, tp, fp, fn, tn, judged, judged_fp, judged_fn, supported, contradicted,
    n_missing_condition, n_extra_condition, n_scope, missing_rows,
    far(fp, tn) as far, frr(fn, tp) as frr, acc(tp, fp, fn, tn) as acc,
    hal_tp(contradicted, judged) as hal_tp, hal_gen(contradicted, judged_fp, judged) as hal_gen,
    jeq(supported, judged, judged_fn) as jeq,
    rdi(n_extra_condition, n_missing_condition, contradicted) as rdi
from counts
