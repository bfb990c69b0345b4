-- depends_on: metric_cube, scope_coverage
-- One row per model in scope, pooled over runs (the paper's tables), on each model's own instances, with the
-- contracts it covers from its coverage statement (`scope_coverage`); `coverage_differs` marks a model whose cells
-- differ from the matched cells the composite uses (a partial system, or one that covers more).
select c.model, c.runs, s.contracts_covered as contracts, c.n, c.tp, c.fp, c.fn, c.tn, c.supported, c.contradicted,
       c.n_missing_condition, c.n_extra_condition, c.far, c.frr, c.acc, c.hal_tp, c.hal_gen, c.jeq, c.rdi,
       c.missing_rows, s.coverage_differs
from metric_cube c
join scope_coverage s using (model)
where c.level = 'model'
order by c.model
