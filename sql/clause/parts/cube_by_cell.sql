-- depends_on: cube_by_contract, judge_cells
-- partition_by: model, run
-- Per (model, run, contract): the counts of `cube_by_contract` summed over categories, which the matched level of
-- `metric_cube` adds up over the matched cells, and whether the cell is one of the scope judge's cells.
select
    c.model, c.run, c.contract_id,
    sum(c.tp)::bigint as tp, sum(c.fp)::bigint as fp, sum(c.fn)::bigint as fn, sum(c.tn)::bigint as tn,
    sum(c.judged)::bigint as judged, sum(c.judged_fp)::bigint as judged_fp, sum(c.judged_fn)::bigint as judged_fn,
    sum(c.supported)::bigint as supported, sum(c.contradicted)::bigint as contradicted,
    sum(c.n_missing_condition)::bigint as n_missing_condition, sum(c.n_extra_condition)::bigint as n_extra_condition,
    sum(c.n_scope)::bigint as n_scope, sum(c.missing_rows)::bigint as missing_rows,
    any_value(j.labelled) as labelled
from cube_by_contract c
join judge_cells j on j.model = c.model and j.run = c.run and j.contract_id = c.contract_id
group by c.model, c.run, c.contract_id
