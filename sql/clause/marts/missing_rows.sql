-- depends_on: audit_scope, instance_outcomes, clause_taxonomy
-- partition_by: model, run
-- stored_as: parquet
-- Instances a model never returned: every (contract in scope) x (41 clause types) without a row.
select s.model, s.run, s.contract_id, t.clause_type, t.category
from audit_scope s
cross join clause_taxonomy t
anti join instance_outcomes o
    on o.model = s.model and o.run = s.run and o.contract_id = s.contract_id and o.clause_type = t.clause_type
