-- depends_on: instance_outcomes, matched_cells
-- Per (model, run, category, contract): the detection and verdict counts of the returned instances, and whether
-- the (contract, run) cell is one of the matched cells. The contract-cluster bootstraps (rate intervals, rank
-- stability of the composite, paired comparisons) resample contracts from these counts.
select
    o.model, o.run, o.category, o.contract_id,
    bool_or(m.contract_id is not null) as matched,
    count(*) filter (where o.outcome = 'TP') as tp,
    count(*) filter (where o.outcome = 'FP') as fp,
    count(*) filter (where o.outcome = 'FN') as fn,
    count(*) filter (where o.outcome = 'TN') as tn,
    count(*) filter (where o.outcome = 'TP' and o.verdict = 'supported') as supported,
    count(*) filter (where o.outcome = 'TP' and o.verdict = 'contradicted') as contradicted,
    count(*) filter (where o.outcome = 'TP' and o.verdict = 'contradicted' and o.mismatch_type = 'extra_condition')
        as n_extra_condition,
    count(*) filter (where o.outcome = 'TP' and o.verdict = 'contradicted' and o.mismatch_type = 'missing_condition')
        as n_missing_condition,
    count(*) filter (where o.outcome = 'TP' and o.verdict = 'contradicted' and o.mismatch_type = 'scope') as n_scope
from instance_outcomes o
left join matched_cells m on m.contract_id = o.contract_id and m.run = o.run
group by o.model, o.run, o.category, o.contract_id
order by o.model, o.run, o.category, o.contract_id
