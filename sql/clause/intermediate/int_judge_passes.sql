-- depends_on: stg_judge_passes
-- The (judge, model, run, contract) cells each judge pass labelled (`judge.pass` events): a contract whose every
-- true positive carried the judge's verdict when the pass ended. A contract extracted after a pass is in none of
-- them until the judge runs again.
select distinct judge, model, run, unnest(contract_ids) as contract_id
from stg_judge_passes
