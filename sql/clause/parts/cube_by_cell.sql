-- depends_on: cube_by_contract
-- partition_by: model, run
-- Per (model, run, contract): the counts of `cube_by_contract` summed over categories, which the matched level of
-- `metric_cube` adds up over the matched cells.
select
    model, run, contract_id,
    sum(tp)::bigint as tp, sum(fp)::bigint as fp, sum(fn)::bigint as fn, sum(tn)::bigint as tn,
    sum(judged)::bigint as judged,
    sum(supported)::bigint as supported, sum(contradicted)::bigint as contradicted,
    sum(n_missing_condition)::bigint as n_missing_condition, sum(n_extra_condition)::bigint as n_extra_condition,
    sum(n_scope)::bigint as n_scope, sum(missing_rows)::bigint as missing_rows
from cube_by_contract
group by model, run, contract_id
