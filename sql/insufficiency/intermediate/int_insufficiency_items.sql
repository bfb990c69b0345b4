-- depends_on: stg_insufficiency_item
-- Every item of every ingested set, once: its kind, its missing elements as recorded, and its gold (the seed's M_v:
-- the required missing elements only) with their count. Non-required elements are listed apart: never gold.
select item_set_id as item_set, item_id as item, base_id, kind, domain, jurisdiction, query,
       len(list_filter(missing_elements, lambda e: e.required)) as gold, missing_elements,
       list_filter(missing_elements, lambda e: e.required) as gold_elements,
       [e.sub_tag for e in missing_elements if e.required] as gold_tags,
       [e.sub_tag for e in missing_elements if not e.required] as non_required_tags
from stg_insufficiency_item
qualify row_number() over (partition by item_set_id, item_id order by time desc, seq desc) = 1
