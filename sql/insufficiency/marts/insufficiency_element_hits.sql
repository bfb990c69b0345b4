-- depends_on: insufficiency_judged, int_insufficiency_gold, insufficiency_scope
-- One row per gold element at the gold version in scope (a required missing element; never a non-required one) of every judged variant in scope:
-- was it identified (named, asked about or conditioned on, as the judge says), was its explanation the reference's,
-- was it fabricated through.
with gold as (
    select item_set, item, unnest(gold_elements) as e from int_insufficiency_gold
    where gold_version = (select gold_version from insufficiency_scope)
),
verdicts as (
    select model, run, item, unnest(elements) as v from insufficiency_judged
)
select j.model, j.run, j.item, g.e.sub_tag as sub_tag, g.e.category as category,
       list_contains(j.identified, g.e.sub_tag) as identified,
       coalesce(v.v.explanation_matches, false) as explanation_matches, coalesce(v.v.fabricated, false) as fabricated
from insufficiency_judged j
join gold g on g.item_set = j.item_set and g.item = j.item
left join verdicts v on v.model = j.model and v.run = j.run and v.item = j.item and v.v.sub_tag = g.e.sub_tag
