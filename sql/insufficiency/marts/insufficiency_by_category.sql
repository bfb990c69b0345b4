-- depends_on: insufficiency_element_hits, insufficiency_units
-- Per model and canonical category (all eight, in the seed's order), pooled over its judged variants in scope:
-- gold elements of the category, how many were identified, and their ratio (null without gold).
with categories(category, position) as (
    values ('jurisdiction', 1), ('controlling_text', 2), ('facts_of_harm', 3), ('parties_and_status', 4),
           ('procedural_posture', 5), ('user_goal', 6), ('timing', 7), ('consideration', 8)
),
models as (select distinct model from insufficiency_units),
pooled as (
    select model, category, count(*) as gold, count(*) filter (where identified) as hits
    from insufficiency_element_hits
    group by model, category
)
select m.model, c.category, coalesce(p.gold, 0) as gold, coalesce(p.hits, 0) as hits, ratio(p.hits, p.gold) as recall
from models m
cross join categories c
left join pooled p on p.model = m.model and p.category = c.category
order by m.model, c.position
