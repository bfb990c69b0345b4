-- depends_on: stg_insufficiency_response_failed
-- The latest recorded failure of each (item set, model, run, item): a refusal, a truncation or an error.
select item_set_id as item_set, model, run, item_id as item, finish_reason, reason, time
from stg_insufficiency_response_failed
qualify row_number() over (partition by item_set_id, model, run, item_id order by time desc, seq desc) = 1
