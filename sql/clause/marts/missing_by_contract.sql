-- depends_on: audit_scope, missing_rows
-- Missing rows attributed to contracts: incomplete in every audited run (persistent) or in some run.
with runs as (
    select model, contract_id, count(distinct run) as runs_audited
    from audit_scope
    group by model, contract_id
),
incomplete as (
    select model, contract_id, count(distinct run) as runs_incomplete, count(*) as missing_instances,
           list(distinct run order by run) as incomplete_runs
    from missing_rows
    group by model, contract_id
)
select i.model, i.contract_id, r.runs_audited, i.runs_incomplete, i.missing_instances, i.incomplete_runs,
       i.runs_incomplete = r.runs_audited as persistent
from incomplete i
join runs r using (model, contract_id)
order by i.model, i.contract_id
