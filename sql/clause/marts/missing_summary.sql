-- depends_on: audit_scope, missing_rows, missing_by_contract, clause_taxonomy
-- Missing rows per model: the nominal instances (cells in scope x clause types), how many were never returned,
-- and how they fall on contracts. `persistent_fraction` is the share of the incomplete contracts that are
-- incomplete in every audited run (inputs the model cannot process rather than transient failures);
-- `persistent_row_share` is the share of the missing rows that sit in those contracts. Null when nothing is missing.
with cells as (
    select model, count(distinct run) as runs, count(distinct contract_id) as contracts, count(*) as cells
    from audit_scope
    group by model
),
missing as (select model, count(*) as missing_rows from missing_rows group by model),
contracts as (
    select model, count(*) as contracts_incomplete, count(*) filter (where persistent) as contracts_persistent,
           coalesce(sum(missing_instances) filter (where persistent), 0) as persistent_missing_rows
    from missing_by_contract
    group by model
)
select
    c.model, c.runs, c.contracts,
    c.cells * (select count(*) from clause_taxonomy) as nominal_rows,
    coalesce(m.missing_rows, 0) as missing_rows,
    ratio(coalesce(m.missing_rows, 0), c.cells * (select count(*) from clause_taxonomy)) as missing_fraction,
    coalesce(k.contracts_incomplete, 0) as contracts_incomplete,
    coalesce(k.contracts_persistent, 0) as contracts_persistent,
    ratio(k.contracts_persistent, k.contracts_incomplete) as persistent_fraction,
    coalesce(k.persistent_missing_rows, 0)::bigint as persistent_missing_rows,
    ratio(k.persistent_missing_rows, m.missing_rows) as persistent_row_share
from cells c
left join missing m using (model)
left join contracts k using (model)
order by c.model
