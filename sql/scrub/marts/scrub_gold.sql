-- depends_on: int_scrub_item_sets, int_scrub_gold, contractscrub_scope
-- The gold of the item set in scope per category, and how it came to be: injected (and verified), derived from
-- the text by the definition parser (the defined terms of an injected set), or as given in an ingested file.
with gold as (
    select category, count(*) as gold
    from int_scrub_gold
    where item_set = (select item_set from contractscrub_scope)
    group by category
)
select k.category, k.position, coalesce(g.gold, 0)::bigint as gold,
       -- A set built by injection (here, or exported and ingested again) derives its defined terms.
       case when not s.injected then 'as given in the file'
            when k.category = 'defined_terms' then 'derived by the definition parser'
            else 'injected' end as gold_source
from int_scrub_item_sets s
cross join scrub_categories() k
left join gold g on g.category = k.category
where s.item_set = (select item_set from contractscrub_scope)
order by k.position
