-- depends_on: stg_insufficiency_scope
-- The (model, run, item set, item) cells each partition is expected to answer: asked by the responses stage, or
-- named by an import (every item of the set for each imported model and run). A cell without a response is
-- reported missing, never scored.
select distinct model, run, item_set_id as item_set, unnest(items) as item, time from stg_insufficiency_scope
