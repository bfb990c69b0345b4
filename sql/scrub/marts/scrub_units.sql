-- depends_on: int_scrub_scores, scrub_cells, contractscrub_scope, contractscrub_scope_models, contractscrub_scope_runs
-- One row per (model, run, contract, category) answered in scope: its gold, predicted, TP, FP and FN, full tuples
-- and term-only (null for inconsistent language), against the gold version in scope. The unit `lhl compare` pairs on is the contract.
select s.model, s.run, s.contract_id as unit, s.category, s.source, s.gold, s.predicted, s.tp, s.fp, s.fn,
       s.terms_gold, s.terms_predicted, s.terms_tp, s.terms_fp, s.terms_fn
from int_scrub_scores s
semi join scrub_cells c on c.model = s.model and c.run = s.run and c.item = s.contract_id
    and c.item_set = s.item_set
where s.item_set = (select item_set from contractscrub_scope)
  and s.gold_version = (select gold_version from contractscrub_scope)
  and s.model in (select model from contractscrub_scope_models)
  and s.run in (select run from contractscrub_scope_runs)
