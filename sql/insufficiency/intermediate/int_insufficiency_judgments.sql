-- depends_on: stg_insufficiency_judgment, stg_insufficiency_judgment_imported
-- One judgment per (item set, judge, model, run, item): made here or imported, the later where both exist. The
-- identified names are as the judge gave them; the marts keep only gold sub-tags.
with judgments as (
    select item_set_id, judge, model, run, item_id, identified_elements, additional_claims, claimed_anything_missing,
           elements, 'judged' as source, time, seq, stream
    from stg_insufficiency_judgment
    union all
    select item_set_id, judge, model, run, item_id, identified_elements, additional_claims, claimed_anything_missing,
           elements, 'imported' as source, time, seq, stream
    from stg_insufficiency_judgment_imported
)
select item_set_id as item_set, judge, model, run, item_id as item, list_distinct(identified_elements) as identified,
       additional_claims, len(additional_claims) as claims, claimed_anything_missing, elements, source, time
from judgments
qualify row_number() over (partition by item_set_id, judge, model, run, item_id
                           order by time desc, stream desc, seq desc) = 1
