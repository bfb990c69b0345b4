-- depends_on: metric_cube
-- Risk Direction Index per model (category = null) and per (model, category):
-- (extra_condition - missing_condition) / contradicted; null without contradictions.
select model, category, contradicted, n_missing_condition, n_extra_condition,
       n_missing_condition / nullif(contradicted, 0)::double as p_missing,
       n_extra_condition / nullif(contradicted, 0)::double as p_extra,
       n_scope / nullif(contradicted, 0)::double as p_scope,
       rdi
from metric_cube
where level in ('model', 'category')
order by model, category nulls first
