-- depends_on: scrub_cost_runs, scrub_units, scrub_coverage
-- ContractScrub: per model in scope, what all its calls in scope cost per found defect (a gold finding it matched:
-- the TPs of `scrub_units`, full tuples), as every suite's (`cost_per_correct_of`).
select * from cost_per_correct_of(scrub_cost_runs, scrub_units, scrub_coverage, 'found defect')
order by model
