-- depends_on: stg_scrub_scope
-- The (model, run, item set, contract) cells a ContractScrub partition or import was asked to cover, nine calls
-- each, with the time it recorded that (the scope's default item set is the one audited last).
select model, run, item_set, item, max(time) as time
from (select model, run, item_set, unnest(items) as item, time from stg_scrub_scope)
group by all
