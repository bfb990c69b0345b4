-- depends_on: scrub_cost_runs, stg_model_registered
-- ContractScrub: for each monitored model (registered with `monitor`), what each run in scope cost, with the days its
-- calls were made. Unknown (null) where a call of the run has an unknown cost.
select * from cost_over_time_of('scrub_cost_runs')
order by model, run
