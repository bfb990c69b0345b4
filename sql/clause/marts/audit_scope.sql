-- depends_on: int_audit_scope, scope, scope_models, scope_runs, scope_contracts
-- partition_by: model, run
-- The (model, run, contract) cells in the report's scope: its corpus, models, runs and contracts.
select a.model, a.run, a.contract_id
from int_audit_scope a
where a.corpus_id = (select corpus_id from scope)
  and a.model in (select model from scope_models)
  and a.run in (select run from scope_runs)
  and a.contract_id in (select contract_id from scope_contracts)
