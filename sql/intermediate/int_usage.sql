-- depends_on: stg_model_calls, stg_model_call_failures, stg_verdicts, stg_verdict_failures
-- Tokens of every model call, attributed to the audited (model, run, contract): extraction calls are billed
-- to the extracting model, judge calls to the judge. Failed calls count too: they were paid for.
select model, run, contract_id, 'extraction' as stage, model as billed_model, null::varchar as judge,
       input_tokens, output_tokens, cached_tokens
from stg_model_calls
union all
select model, run, contract_id, 'extraction', model, null, input_tokens, output_tokens, cached_tokens
from stg_model_call_failures
union all
select model, run, contract_id, 'judge', judge, judge, input_tokens, output_tokens, cached_tokens
from stg_verdicts
union all
select model, run, contract_id, 'judge', judge, judge, input_tokens, output_tokens, cached_tokens
from stg_verdict_failures
