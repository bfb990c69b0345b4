-- depends_on: audit_scope, instance_outcomes, int_judge_passes, scope
-- partition_by: model, run
-- Per (model, run, contract) cell in scope: its TPs, how many of them the scope's judge decided (`judged`:
-- supported or contradicted), how many it left `undetermined` (an abstaining judge: never counted as supported or
-- as contradicted), `imported`: of the judged, how many carry the verdict they were imported with, whatever the
-- judge; and whether the cell is one of the judge's cells (`labelled`): the cells every content figure (HalTP,
-- HalGen, JEq, RDI) is computed on, while detection figures keep every cell (docs/method.md, section 5). A cell is
-- the judge's when a TP of it has the judge's verdict, or a pass of the judge over its (model, run) recorded it
-- (`int_judge_passes`); a cell of a run the judge passed over, in no pass and with no verdict, was added after the
-- pass (`after_pass`): unlabelled until judged. Imported cells, and runs with no recorded pass (judged before passes were
-- recorded, or by a debate), keep the rule of `labelled_cell`.
with cells as (
    select s.model, s.run, s.contract_id,
           count(o.outcome) filter (where o.outcome = 'TP') as tp,
           count(o.outcome) filter (where o.outcome = 'TP' and o.verdict is not null) as seen,
           count(o.outcome) filter (where o.outcome = 'TP' and o.verdict in ('supported', 'contradicted')) as judged,
           count(o.outcome) filter (where o.outcome = 'TP' and o.verdict = 'undetermined') as undetermined,
           count(o.outcome) filter (where o.outcome = 'TP' and o.verdict in ('supported', 'contradicted')
                                    and o.source = 'import') as imported,
           coalesce(bool_or(o.source = 'import'), false) as import_cell
    from (select distinct model, run, contract_id from audit_scope) s
    left join instance_outcomes o on o.model = s.model and o.run = s.run and o.contract_id = s.contract_id
    group by s.model, s.run, s.contract_id
),
passes as (select model, run, contract_id from int_judge_passes where judge = (select judge from scope)),
passed_runs as (select distinct model, run from passes)
select c.model, c.run, c.contract_id, c.tp, c.judged, c.undetermined, c.imported,
       case when c.seen > 0 or p.contract_id is not null then true
            when c.import_cell or r.model is null
                then labelled_cell(c.tp, c.seen, sum(c.tp) over (partition by c.model, c.run),
                                   sum(c.seen) over (partition by c.model, c.run))
            else false
       end as labelled,
       c.seen = 0 and p.contract_id is null and not c.import_cell and r.model is not null as after_pass
from cells c
left join passes p on p.model = c.model and p.run = c.run and p.contract_id = c.contract_id
left join passed_runs r on r.model = c.model and r.run = c.run
