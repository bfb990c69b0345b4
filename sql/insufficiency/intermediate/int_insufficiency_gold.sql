-- depends_on: int_insufficiency_items, stg_review_insufficiency_gold
-- Every item kept in each gold version of its set, with its gold there: version 1 is the items as ingested; a later
-- version (`lhl review import`) drops a rejected variant and turns an element marked not_required into a
-- non-required one (never gold: named, it counts as a claim outside M_v).
select item_set, 1 as gold_version, item, base_id, kind, domain, gold, gold_elements, gold_tags, non_required_tags
from int_insufficiency_items
union all
select i.item_set, r.gold_version, i.item, i.base_id, i.kind, i.domain,
       len(list_filter(r.missing_elements, lambda e: e.required)) as gold,
       list_filter(r.missing_elements, lambda e: e.required) as gold_elements,
       [e.sub_tag for e in r.missing_elements if e.required] as gold_tags,
       [e.sub_tag for e in r.missing_elements if not e.required] as non_required_tags
from stg_review_insufficiency_gold r
join int_insufficiency_items i on i.item_set = r.item_set_id and i.item = r.item_id
where r.kept
