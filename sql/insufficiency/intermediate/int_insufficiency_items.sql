-- depends_on: stg_insufficiency_item
-- Every item of every ingested set, once: its kind, its gold (the missing elements with categories) and their count.
select item_set_id as item_set, item_id as item, base_id, kind, domain, jurisdiction, query,
       len(missing_elements) as gold, missing_elements, [e.sub_tag for e in missing_elements] as gold_tags
from stg_insufficiency_item
qualify row_number() over (partition by item_set_id, item_id order by time desc, seq desc) = 1
