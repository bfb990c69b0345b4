-- depends_on: audit_scope, matched_cells
-- Per model: the contracts it covers, how many of the scope's contracts it lacks in some selected run, and
-- whether its cells differ from the matched cells the composite uses (the comparable_scope check reads this).
with runs as (select count(distinct run) as n from audit_scope),
all_contracts as (select count(distinct contract_id) as n from audit_scope),
per_contract as (
    select model, contract_id, count(distinct run) as runs from audit_scope group by model, contract_id
),
per_model as (
    select model, count(*) as contracts, count(*) filter (where runs = (select n from runs)) as contracts_complete,
           sum(runs) as cells
    from per_contract
    group by model
)
select model, contracts, contracts_complete,
       (select n from all_contracts) - contracts_complete as contracts_lacking,
       (select count(distinct contract_id) from matched_cells) as matched_contracts,
       cells <> (select count(*) from matched_cells) as coverage_differs
from per_model
order by model
