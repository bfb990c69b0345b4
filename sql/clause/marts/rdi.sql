-- depends_on: metric_cube
-- Risk Direction Index per model (category = null) and per (model, category), with the shares of
-- contradictions labelled missing, extra and scope: (extra - missing) / contradicted; null without any.
select model, category, contradicted, n_missing_condition, n_extra_condition, n_scope,
       ratio(n_missing_condition, contradicted) as p_missing,
       ratio(n_extra_condition, contradicted) as p_extra,
       ratio(n_scope, contradicted) as p_scope,
       rdi
from metric_cube
where level in ('model', 'category')
order by model, category nulls first
