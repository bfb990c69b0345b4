-- depends_on: insufficiency_cost_runs, stg_model_registered
-- InsufficiencyBench: for each monitored model (registered with `monitor`), what each run in scope cost, with the
-- days its calls were made. Unknown (null) where a call of the run has an unknown cost.
select * from cost_over_time_of('insufficiency_cost_runs')
order by model, run
