-- depends_on: cube_by_contract, matched_cells
-- stored_as: view
-- Per (model, run, category, contract): the detection and verdict counts of the returned instances, and whether
-- the (contract, run) cell is one of the matched cells. The contract-cluster bootstraps (rate intervals, rank
-- stability of the composite, paired comparisons) resample contracts from these counts; `judged_fp` and `judged_fn`
-- are the FPs and FNs of the cells the scope's judge labelled, which the content rates take (`judge_cells`).
select c.model, c.run, c.category, c.contract_id, m.contract_id is not null as matched, c.tp, c.fp, c.fn, c.tn,
       c.judged, c.judged_fp, c.judged_fn, c.supported, c.contradicted, c.n_extra_condition, c.n_missing_condition,
       c.n_scope
from cube_by_contract c
left join matched_cells m on m.contract_id = c.contract_id and m.run = c.run
where c.tp + c.fp + c.fn + c.tn > 0
