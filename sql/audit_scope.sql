-- depends_on: stg_imports
-- The contracts each (model, run) was asked to cover. Audited partitions record their scope;
-- for imported outcomes the scope is every contract id seen in any imported row.
with audited as (
    select distinct
        json_extract_string(payload, '$.model') as model,
        cast(json_extract(payload, '$.run') as integer) as run,
        unnest(from_json(json_extract(payload, '$.contract_ids'), '["VARCHAR"]')) as contract_id
    from events
    where type = 'audit.scope'
),
imported_runs as (select distinct model, run from stg_imports),
imported_contracts as (select distinct contract_id from stg_imports)
select model, run, contract_id from audited
union
select r.model, r.run, c.contract_id from imported_runs r cross join imported_contracts c
