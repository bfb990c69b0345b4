-- depends_on: insufficiency_element_hits, insufficiency_completeness
-- Per model and canonical category (all eight, in the seed's order), pooled over its judged variants in scope:
-- gold (required) elements of the category, how many were identified, and their ratio (null without gold, and null
-- for an incomplete model: a recall over the responses it happens to have is not the scope's figure).
with categories(category, position) as (
    values ('jurisdiction', 1), ('controlling_text', 2), ('facts_of_harm', 3), ('parties_and_status', 4),
           ('procedural_posture', 5), ('user_goal', 6), ('timing', 7), ('consideration', 8)
),
pooled as (
    select model, category, count(*) as gold, count(*) filter (where identified) as hits
    from insufficiency_element_hits
    group by model, category
)
select m.model, c.category, coalesce(p.gold, 0) as gold, coalesce(p.hits, 0) as hits,
       case when m.complete then ratio(p.hits, p.gold) end as recall
from insufficiency_completeness m
cross join categories c
left join pooled p on p.model = m.model and p.category = c.category
order by m.model, c.position
