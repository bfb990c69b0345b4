-- depends_on: scrub_units, scrub_missing
-- What `lhl compare --suite contractscrub` pairs on: one row per (model, run, contract, category) asked in scope,
-- `answered` with its counts (`scrub_units`), or a missing call without counts (`scrub_missing`). The compare pairs
-- contracts and runs both models were asked and refuses a model with a missing call among them: an incomplete
-- system has no overall figure.
select model, run, unit, category, true as answered, gold, predicted, tp, fp, fn, terms_gold, terms_predicted,
       terms_tp, terms_fp, terms_fn
from scrub_units
union all by name
select model, run, contract_id as unit, category, false as answered
from scrub_missing
