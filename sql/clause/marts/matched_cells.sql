-- depends_on: audit_scope
-- The matched cells: the (contract, run) cells that every *maximal* system covers. A system is maximal when no
-- other system in scope covers every cell it covers and more; a partial system (a subset debate, a model audited
-- on fewer contracts or runs) is contained in another one and so never shrinks the matched set. Cross-model
-- figures (the composite) rank the systems that cover these cells, on these cells only (docs/method.md, 10).
with cells as (select distinct model, run, contract_id from audit_scope),
sizes as (select model, count(*) as cells from cells group by model),
shared as (
    select a.model as inner_model, b.model as outer_model, count(*) as cells
    from cells a
    join cells b on b.run = a.run and b.contract_id = a.contract_id and b.model <> a.model
    group by all
),
contained as (
    select s.inner_model as model
    from shared s
    join sizes i on i.model = s.inner_model
    join sizes o on o.model = s.outer_model
    where s.cells = i.cells and o.cells > i.cells
),
maximal as (select model from sizes where model not in (select model from contained))
select contract_id, run
from cells
where model in (select model from maximal)
group by contract_id, run
having count(*) = (select count(*) from maximal)
