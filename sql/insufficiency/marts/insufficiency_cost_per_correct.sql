-- depends_on: insufficiency_cost_runs, insufficiency_units, insufficiency_completeness
-- InsufficiencyBench: per tested model in scope, what all its calls in scope cost per identified missing element (a
-- gold element the judge says it identified: the TPs of `insufficiency_units`), as every suite's
-- (`cost_per_correct_of`).
select * from cost_per_correct_of(insufficiency_cost_runs, insufficiency_units, insufficiency_completeness,
                                  'identified missing element')
order by model
