-- depends_on: stg_scrub_findings_failed
-- Why a call has no answer: the latest recorded failure per (model, run, item set, contract, category).
select model, run, item_set, contract_id, category, reason, request_key, time
from stg_scrub_findings_failed
qualify row_number() over (partition by model, run, item_set, contract_id, category
                           order by time desc, seq desc) = 1
