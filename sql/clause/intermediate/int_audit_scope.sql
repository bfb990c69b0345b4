-- depends_on: stg_audit_scope, stg_imports, int_debate_configs
-- The (corpus, model, run, contract) cells each system was asked to cover (docs/method.md, section 10).
-- - An audited partition records the contracts it was asked to extract.
-- - An import records, per (model, run), the contracts of the whole import (every model's) or the subset or list
--   named at import. Imports made before they recorded it: each (model, run) of the import covers every contract
--   of that import. Either way a contract a model lacks in every run of the import is missing there, not "not
--   covered", so persistent gaps show.
-- - A debate system covers the debated contracts its backbone was audited on in that run: a contract of the
--   subset without a baseline was never asked of the debate, while a baseline the backbone failed to return
--   stays a missing row of the debate system as of its backbone.
with recorded as (
    select corpus_id, model, run, unnest(contract_ids) as contract_id, stream from stg_audit_scope
),
asked as (
    select distinct corpus_id, model, run, contract_id from recorded where not starts_with(stream, 'debate.')
),
legacy_imports as (
    select distinct r.corpus_id, r.model, r.run, c.contract_id
    from (select distinct stream, corpus_id, model, run from stg_imports) r
    join (select distinct stream, contract_id from stg_imports) c using (stream)
    where r.stream not in (select stream from recorded)
),
backbones as (select * from asked union select * from legacy_imports),
debated as (
    select distinct r.corpus_id, r.model, r.run, r.contract_id
    from recorded r
    join (select distinct system, backbone from int_debate_configs) d on d.system = r.model
    semi join backbones b
        on b.corpus_id = r.corpus_id and b.model = d.backbone and b.run = r.run and b.contract_id = r.contract_id
    where starts_with(r.stream, 'debate.')
)
select corpus_id, model, run, contract_id from backbones
union
select corpus_id, model, run, contract_id from debated
