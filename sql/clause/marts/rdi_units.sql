-- depends_on: instance_outcomes
-- partition_by: model, run
-- stored_as: parquet
-- Per (model, run, category, contract): the contradicted TPs and their direction labels.
-- The bootstrap resamples these (instances by default, contracts as clusters on request).
select
    model, run, category, contract_id,
    count(*) as contradicted,
    count(*) filter (where mismatch_type = 'extra_condition') as n_extra,
    count(*) filter (where mismatch_type = 'missing_condition') as n_missing
from instance_outcomes
where outcome = 'TP' and verdict = 'contradicted'
group by model, run, category, contract_id
order by model, run, category, contract_id
