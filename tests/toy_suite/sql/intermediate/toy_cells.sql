-- depends_on: stg_toy_scope
-- The (model, run, item set, contract) cells each toy partition was asked to cover.
select distinct model, run, item_set, unnest(items) as item, time from stg_toy_scope
