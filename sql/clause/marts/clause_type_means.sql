-- depends_on: clause_profiles
-- Per clause type: the mean across the models in scope of each rate in `clause_profiles` (models for which the
-- rate is undefined are left out of its mean), to set one model's clause-type profile against the field.
select
    clause_type,
    any_value(category) as category,
    count(*) as models,
    avg(far) as far_mean,
    avg(frr) as frr_mean,
    avg(acc) as acc_mean,
    avg(hal_tp) as hal_tp_mean,
    avg(hal_gen) as hal_gen_mean,
    avg(jeq) as jeq_mean,
    avg(rdi) as rdi_mean
from clause_profiles
group by clause_type
order by category, clause_type
