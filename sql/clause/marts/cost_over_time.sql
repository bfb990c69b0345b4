-- depends_on: cost_stage_runs, stg_model_registered
-- For each monitored model (registered with `monitor`, audited in recurring rounds): what each audit round in scope
-- cost (its extraction and the scope's judge on it), with the days its calls were made. Unknown (null) where a call
-- of the round has an unknown cost.
select * from cost_over_time_of('cost_stage_runs')
order by model, run
