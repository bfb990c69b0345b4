-- depends_on: audit_scope, matched_cells, cube_by_contract, judge_cells, int_audit_scope, stg_subset_created, scope, scope_models, scope_runs, scope_contracts, clause_taxonomy
-- The one coverage statement per system in scope, which the report's header, the leaderboard, the checks, the
-- HTML and `lhl publish` all read: the contracts and runs the scope asks for (the subset's or the corpus's
-- contracts; the runs given, else every audited run), what the system covers of them, what it lacks, its nominal,
-- returned and missing rows, whether it covers the matched cells (then it is ranked in the cross-model figures),
-- and what the scope's judge labelled of its true positives (the content figures rest on those cells only): how many
-- it decided, left undetermined, and the cells added after its pass, unlabelled until judged.
-- `own_scope`: for a system not ranked, whether a scope with its runs ranks it: the scope's own contracts, else
-- `own_subset`, the smallest stored subset holding every contract it covers. Either is named only when no system
-- of the corpus covers a cell of it (in those runs) that this system lacks, so the system is maximal there and
-- `lhl report [--subset own_subset] --runs <its runs>` really ranks it.
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
fits as (  -- subsets holding every contract the system covers
    select c.model, s.name, len(s.contract_ids) as size
    from (select distinct model, contract_id from cells) c
    join stg_subset_created s on list_contains(s.contract_ids, c.contract_id)
    group by c.model, s.name, s.contract_ids
    having count(*) = (select count(distinct contract_id) from cells x where x.model = c.model)
),
unranked as (
    select p.model, p.runs_covered
    from per_model p
    left join on_matched o using (model)
    where p.cells > 0 and not ((select cells from matched) > 0 and coalesce(o.cells, 0) = (select cells from matched))
),
candidates as (  -- the scope's own contracts (kind 0) and each fitting subset (kind 1), with the system's runs
    select u.model, u.runs_covered, 0 as kind, (select subset from scope) as name, 0 as size, k.contract_id
    from unranked u cross join scope_contracts k
    union all
    select u.model, u.runs_covered, 1, f.name, f.size, unnest(s.contract_ids)
    from unranked u
    join fits f using (model)
    join stg_subset_created s on s.name = f.name
),
corpus_cells as (  -- every system's cells in the corpus: what a report without --models holds
    select distinct model, run, contract_id from int_audit_scope where corpus_id = (select corpus_id from scope)
),
spoiled as (  -- candidates where another system covers a cell of the system's runs that the system lacks
    select distinct k.model, k.kind, k.name
    from candidates k
    join corpus_cells y on y.contract_id = k.contract_id and y.model <> k.model and list_contains(k.runs_covered, y.run)
    anti join corpus_cells x on x.model = k.model and x.run = y.run and x.contract_id = y.contract_id
),
own as (
    select k.model, k.name as own_subset
    from (select distinct model, kind, name, size from candidates) k
    anti join spoiled x on x.model = k.model and x.kind = k.kind and x.name is not distinct from k.name
    qualify row_number() over (partition by k.model order by k.kind, k.size, k.name) = 1
),
judging as (  -- what the scope's judge labelled of each system's true positives (`judge_cells`)
    select model, sum(tp)::bigint as true_positives, sum(judged)::bigint as judged_tp,
           sum(imported)::bigint as imported_tp, sum(undetermined)::bigint as undetermined_tp,
           count(*) filter (where after_pass)::bigint as cells_after_pass,
           coalesce(list(distinct run order by run) filter (where judged > 0), []) as judged_runs,
           count(distinct contract_id) filter (where tp > 0) as tp_contracts,
           count(distinct contract_id) filter (where judged > 0) as judged_contracts
    from judge_cells
    group by model
),
-- returned and missing rows counted from the part that already counts them per contract (each returned instance
-- has one of the four outcomes), not by reading every instance again
returned as (select model, sum(tp + fp + fn + tn)::bigint as rows from cube_by_contract group by model),
missing as (select model, sum(missing_rows)::bigint as rows from cube_by_contract group by model
            having sum(missing_rows) > 0)
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
    w.model is not null as own_scope,
    w.own_subset,
    (select judge from scope) as judge,
    coalesce(j.true_positives, 0) as true_positives,
    coalesce(j.judged_tp, 0) as judged_tp,
    coalesce(j.imported_tp, 0) as imported_tp,
    coalesce(j.judged_runs, []) as judged_runs,
    coalesce(j.tp_contracts, 0) as tp_contracts,
    coalesce(j.judged_contracts, 0) as judged_contracts,
    coalesce(j.undetermined_tp, 0) as undetermined_tp,
    coalesce(j.cells_after_pass, 0) as cells_after_pass
from per_model p
left join complete k using (model)
left join on_matched o using (model)
left join returned r using (model)
left join missing x using (model)
left join own w using (model)
left join judging j using (model)
order by p.model
