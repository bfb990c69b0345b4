-- depends_on: per_run_metrics
-- Mean and sample standard deviation across runs of each per-run rate (null SD with one run).
select
    model, count(*) as runs,
    avg(far) as far_mean, stddev_samp(far) as far_sd,
    avg(frr) as frr_mean, stddev_samp(frr) as frr_sd,
    avg(acc) as acc_mean, stddev_samp(acc) as acc_sd,
    avg(hal_tp) as hal_tp_mean, stddev_samp(hal_tp) as hal_tp_sd,
    avg(hal_gen) as hal_gen_mean, stddev_samp(hal_gen) as hal_gen_sd,
    avg(jeq) as jeq_mean, stddev_samp(jeq) as jeq_sd,
    avg(rdi) as rdi_mean, stddev_samp(rdi) as rdi_sd
from per_run_metrics
group by model
order by model
