-- depends_on: audit_scope, matched_cells, missing_rows, instance_outcomes, stg_subset_created, scope, scope_models, scope_runs, scope_contracts, clause_taxonomy
-- The one coverage statement per system in scope, which the report's header, the leaderboard, the checks, the
-- HTML and `lhl publish` all read: the contracts and runs the scope asks for (the subset's or the corpus's
-- contracts; the runs given, else every audited run), what the system covers of them, what it lacks, its nominal,
-- returned and missing rows, and whether it covers the matched cells (then it is ranked in the cross-model figures).
-- `own_subset` is the smallest stored subset holding every contract the system covers and no matched contract it
-- lacks: with its runs, the scope in which a partial system is seen beside the others.
with asked as (
    select (select count(*) from scope_contracts) as contracts,
           (select list(run order by run) from scope_runs) as runs
),
cells as (select distinct model, run, contract_id from audit_scope),
matched as (
    select count(*) as cells, count(distinct contract_id) as contracts, list(distinct run order by run) as runs
    from matched_cells
),
per_contract as (select model, contract_id, count(*) as runs from cells group by model, contract_id),
per_model as (
    select m.model,
           count(distinct c.contract_id) as contracts_covered,
           count(c.contract_id) as cells,
           coalesce(list(distinct c.run order by c.run) filter (where c.run is not null), []) as runs_covered
    from scope_models m
    left join cells c using (model)
    group by m.model
),
complete as (
    select model, count(*) as contracts_complete
    from per_contract
    where runs = (select len(runs) from asked)
    group by model
),
on_matched as (
    select c.model, count(*) as cells
    from cells c
    semi join matched_cells m on m.contract_id = c.contract_id and m.run = c.run
    group by c.model
),
fits as (  -- subsets holding every contract the system covers, and no matched contract it lacks
    select c.model, s.name, len(s.contract_ids) as size
    from (select distinct model, contract_id from cells) c
    join stg_subset_created s on list_contains(s.contract_ids, c.contract_id)
    group by c.model, s.name, s.contract_ids
    having count(*) = (select count(distinct contract_id) from cells x where x.model = c.model)
),
lacking as (  -- (system, subset) pairs where the subset holds a matched contract the system does not cover
    select distinct f.model, f.name
    from fits f
    join stg_subset_created s on s.name = f.name
    join matched_cells m on list_contains(s.contract_ids, m.contract_id)
    anti join cells y on y.model = f.model and y.contract_id = m.contract_id
),
own as (select model, arg_min(name, (size, name)) as own_subset from fits anti join lacking using (model, name)
        group by model),
returned as (select model, count(*) as rows from instance_outcomes group by model),
missing as (select model, count(*) as rows from missing_rows group by model)
select
    p.model,
    (select contracts from asked) as contracts_asked,
    (select runs from asked) as runs_asked,
    p.contracts_covered,
    coalesce(k.contracts_complete, 0) as contracts_complete,
    (select contracts from asked) - p.contracts_covered as contracts_missing,
    p.runs_covered,
    p.cells,
    p.cells * (select count(*) from clause_taxonomy) as nominal_rows,
    coalesce(r.rows, 0) as returned_rows,
    coalesce(x.rows, 0) as missing_rows,
    (select contracts from matched) as matched_contracts,
    (select runs from matched) as matched_runs,
    (select cells from matched) as matched_cells,
    (select cells from matched) > 0 and coalesce(o.cells, 0) = (select cells from matched) as ranked,
    p.cells <> (select cells from matched) or coalesce(o.cells, 0) <> (select cells from matched) as coverage_differs,
    w.own_subset
from per_model p
left join complete k using (model)
left join on_matched o using (model)
left join returned r using (model)
left join missing x using (model)
left join own w using (model)
order by p.model
