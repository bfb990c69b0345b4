-- depends_on: instance_outcomes, matched_cells
-- Per (model, run, category, contract): the detection and verdict counts of the returned instances, and whether
-- the (contract, run) cell is one of the matched cells. The contract-cluster bootstraps (rate intervals, rank
-- stability of the composite, paired comparisons) resample contracts from these counts.
with counts as (
    select
        model, run, category, contract_id,
        count(*) filter (where outcome = 'TP') as tp,
        count(*) filter (where outcome = 'FP') as fp,
        count(*) filter (where outcome = 'FN') as fn,
        count(*) filter (where outcome = 'TN') as tn,
        count(*) filter (where outcome = 'TP' and verdict is not null) as judged,
        count(*) filter (where outcome = 'TP' and verdict = 'supported') as supported,
        count(*) filter (where outcome = 'TP' and verdict = 'contradicted') as contradicted,
        count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'extra_condition')
            as n_extra_condition,
        count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'missing_condition')
            as n_missing_condition,
        count(*) filter (where outcome = 'TP' and verdict = 'contradicted' and mismatch_type = 'scope') as n_scope
    from instance_outcomes
    group by model, run, category, contract_id
)
select c.model, c.run, c.category, c.contract_id, m.contract_id is not null as matched, c.tp, c.fp, c.fn, c.tn,
       c.judged, c.supported, c.contradicted, c.n_extra_condition, c.n_missing_condition, c.n_scope
from counts c
left join matched_cells m on m.contract_id = c.contract_id and m.run = c.run
