-- depends_on: typed_profiles
-- Gap(model) = max over categories of HalTP - min over categories of HalTP (categories with a HalTP).
select
    model,
    max(hal_tp) - min(hal_tp) as gap,
    arg_max(category, hal_tp) as max_category,
    arg_min(category, hal_tp) as min_category
from typed_profiles
where hal_tp is not null
group by model
union all
select model, null, null, null
from typed_profiles
group by model
having count(hal_tp) = 0
order by model
