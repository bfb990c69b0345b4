-- depends_on: int_insufficiency_item_sets, int_insufficiency_gold, insufficiency_scope
-- The item set in scope and what it is: its name, provenance, source and description as recorded at ingestion (the
-- shipped set is labelled self-built in every report; an external set keeps its own). Its missing elements are
-- counted as gold (required: the seed's M_v) and non-required (shown, never scored), and its variants, at the gold
-- version in scope (a review drops a rejected variant and makes an element non-required).
with elements as (
    select item_set, count(*) filter (where kind = 'variant') as variants, sum(gold) as gold_elements,
           sum(len(non_required_tags)) as non_required_elements
    from int_insufficiency_gold
    where gold_version = (select gold_version from insufficiency_scope)
    group by item_set
)
select s.item_set, s.name, s.provenance, s.self_built, s.base_items, coalesce(e.variants, 0)::bigint as variants,
       s.missing_elements,
       coalesce(e.gold_elements, 0)::bigint as gold_elements,
       coalesce(e.non_required_elements, 0)::bigint as non_required_elements, s.domains, s.jurisdictions, s.source,
       s.description
from int_insufficiency_item_sets s
left join elements e using (item_set)
where s.item_set = (select item_set from insufficiency_scope)
