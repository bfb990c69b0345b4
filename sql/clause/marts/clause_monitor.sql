-- depends_on: metric_cube, stg_audit_scope, scope
-- The monitoring series' statistics (lhl_platform/monitoring): per (model, run) in scope, overall (category null)
-- and per category, each headline metric as units, the sum of unit values and of their squares: a rate's units are
-- its denominator's instances and its sum the numerator; RDI's units are the contradicted TPs, each +1 (extra
-- condition), -1 (missing condition) or 0. The round's date is when its partition recorded its contracts; a round
-- with missing rows is partial. The clause gold is CUAD's oracle, never versioned.
with cells as (
    select model, run, category, tp, fp, fn, tn, judged, judged_fp, judged_fn, supported, contradicted,
           n_extra_condition as extra, n_missing_condition as missing
    from metric_cube
    where level in ('run', 'run_category')
),
rounds as (
    select c.model, c.run, max(a.time) as at, (select judge from scope) as judge, null::integer as gold_version,
           coalesce(c.missing_rows > 0, false) as partial
    from metric_cube c
    left join stg_audit_scope a on a.model = c.model and a.run = c.run
    where c.level = 'run'
    group by c.model, c.run, c.missing_rows
),
stats as (
    select model, run, category, 'far' as metric, fp + tn as n, fp as s1, fp as s2 from cells
    union all select model, run, category, 'frr', fn + tp, fn, fn from cells
    union all select model, run, category, 'hal_tp', judged, contradicted, contradicted from cells
    union all select model, run, category, 'hal_gen', judged + judged_fp, contradicted + judged_fp,
                     contradicted + judged_fp from cells
    union all select model, run, category, 'jeq', judged + judged_fn, supported, supported from cells
    union all select model, run, category, 'rdi', contradicted, extra - missing, extra + missing from cells
)
select r.model, r.run, r.at, r.judge, r.gold_version, r.partial, s.category, s.metric, s.n::bigint as n,
       s.s1::double as s1, s.s2::double as s2
from stats s
join rounds r using (model, run)
order by r.model, r.run, s.metric, s.category nulls first
