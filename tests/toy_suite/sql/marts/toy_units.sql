-- depends_on: stg_toy_scored, toy_cells, toy_scope, toy_scope_models, toy_scope_runs
-- One row per (model, run, contract) in scope: parties named and matched.
select s.model, s.run, s.contract_id as unit, s.named, s.matched
from stg_toy_scored s
semi join toy_cells c on c.model = s.model and c.run = s.run and c.item = s.contract_id
    and c.item_set = (select item_set from toy_scope)
where s.model in (select model from toy_scope_models) and s.run in (select run from toy_scope_runs)
qualify row_number() over (partition by s.model, s.run, s.contract_id order by s.time desc, s.seq desc) = 1
