-- depends_on: audit_scope, instance_outcomes
-- partition_by: model, run
-- Per (model, run, contract) cell in scope: its TPs, how many of them the scope's judge labelled (`imported`: of
-- those, how many carry the verdict they were imported with, whatever the judge), and whether the
-- cell is one of the judge's cells (`labelled_cell`): the cells every content figure (HalTP, HalGen, JEq, RDI) is
-- computed on, while detection figures keep every cell (docs/method.md, section 5).
with cells as (
    select s.model, s.run, s.contract_id,
           count(o.outcome) filter (where o.outcome = 'TP') as tp,
           count(o.outcome) filter (where o.outcome = 'TP' and o.verdict is not null) as judged,
           count(o.outcome) filter (where o.outcome = 'TP' and o.verdict is not null and o.source = 'import')
               as imported
    from (select distinct model, run, contract_id from audit_scope) s
    left join instance_outcomes o on o.model = s.model and o.run = s.run and o.contract_id = s.contract_id
    group by s.model, s.run, s.contract_id
)
select model, run, contract_id, tp, judged, imported,
       labelled_cell(tp, judged, sum(tp) over (partition by model, run),
                     sum(judged) over (partition by model, run)) as labelled
from cells
