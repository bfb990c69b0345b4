-- depends_on: stg_imports, stg_audit_scope
-- partition_by: stream
-- stored_as: parquet
-- The cells of the imports made before imports recorded their coverage (`int_audit_scope`): each (model, run) of
-- such an import covers every contract of that import. Per import stream, so a refresh reads only new imports.
select distinct r.stream, r.corpus_id, r.model, r.run, c.contract_id
from (select distinct stream, corpus_id, model, run from stg_imports) r
join (select distinct stream, contract_id from stg_imports) c using (stream)
where r.stream not in (select stream from stg_audit_scope)
