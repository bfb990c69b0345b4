-- depends_on: int_scrub_item_sets, int_scrub_gold, contractscrub_scope
-- The gold of the item set in scope at the gold version in scope, per category, and how it came to be: injected
-- (and verified), derived from the text by the definition parser (the defined terms of an injected set), as given
-- in an ingested file, or added by a review (a defect already in the source).
with gold as (
    select category, count(*) as gold, count(*) filter (where not injected and category <> 'defined_terms')
           as pre_existing
    from int_scrub_gold
    where item_set = (select item_set from contractscrub_scope)
      and gold_version = (select gold_version from contractscrub_scope)
    group by category
)
select k.category, k.position, coalesce(g.gold, 0)::bigint as gold,
       -- A set built by injection (here, or exported and ingested again) derives its defined terms.
       case when not s.injected then 'as given in the file'
            when k.category = 'defined_terms' then 'derived by the definition parser'
            when g.pre_existing > 0 then 'injected, and pre-existing defects a review added'
            else 'injected' end as gold_source
from int_scrub_item_sets s
cross join scrub_categories() k
left join gold g on g.category = k.category
where s.item_set = (select item_set from contractscrub_scope)
order by k.position
