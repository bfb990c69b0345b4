-- depends_on: int_usage, int_model_prices, audit_scope, scope
-- partition_by: model, run
-- The clause suite's calls for the contracts in scope (those `usage_costs` counts), summed per (system, run, stage,
-- role, billed model, day) by `cost_runs`: `solve` the system's extraction, `judge` the scope's judge on it,
-- `debate` a debate system's role calls (one `role` each).
with calls as (
    select u.* replace (case when u.role is not null then 'debate' when u.stage = 'judge' then 'judge'
                             else 'solve' end as stage)
    from int_usage u
    semi join audit_scope s on s.model = u.model and s.run = u.run and s.contract_id = u.contract_id
    where u.stage = 'extraction' or u.judge = (select judge from scope)
)
select * from cost_runs(calls)
order by model, run, stage, role, billed_model, day
