-- depends_on: stg_insufficiency_response, stg_insufficiency_response_imported
-- One response per (item set, model, run, item): answered here or imported, the later where both exist.
with responses as (
    select item_set_id, model, run, item_id, response, 'answered' as source, time, seq, stream
    from stg_insufficiency_response
    union all
    select item_set_id, model, run, item_id, response, 'imported' as source, time, seq, stream
    from stg_insufficiency_response_imported
)
select item_set_id as item_set, model, run, item_id as item, response, source, time
from responses
qualify row_number() over (partition by item_set_id, model, run, item_id order by time desc, stream desc, seq desc) = 1
