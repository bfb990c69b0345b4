-- depends_on: stg_insufficiency_judgment_failed
-- The latest failed judge call of each (item set, judge, model, run, item), and which of the two calls it was.
select item_set_id as item_set, judge, model, run, item_id as item, stage, reason, time
from stg_insufficiency_judgment_failed
qualify row_number() over (partition by item_set_id, judge, model, run, item_id order by time desc, seq desc) = 1
