-- depends_on: audit_scope
-- The matched cells: contracts that every compared model covers in every selected run, times those runs.
-- Cross-model figures (the composite) use only these, so every model is ranked on the same instances.
with runs as (select distinct run from audit_scope),
per_contract as (select contract_id, count(distinct (model, run)) as cells from audit_scope group by contract_id)
select p.contract_id, r.run
from per_contract p
cross join runs r
where p.cells = (select count(distinct model) from audit_scope) * (select count(*) from runs)
