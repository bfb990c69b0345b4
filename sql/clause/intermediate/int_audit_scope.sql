-- depends_on: stg_audit_scope, stg_imports
-- partition_by: model
-- The (corpus, model, run, contract) cells each model was asked to cover. Audited partitions record theirs;
-- an imported (model, run) covers every contract imported for that model in any run, so a contract absent
-- from one run but present in another is counted as missing there.
with imported_runs as (select distinct corpus_id, model, run from stg_imports),
imported_contracts as (select distinct corpus_id, model, contract_id from stg_imports)
select distinct corpus_id, model, run, unnest(contract_ids) as contract_id from stg_audit_scope
union
select r.corpus_id, r.model, r.run, c.contract_id
from imported_runs r
join imported_contracts c using (corpus_id, model)
