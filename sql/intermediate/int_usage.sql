-- depends_on: stg_model_calls, stg_model_call_failures, stg_verdicts, stg_verdict_failures, int_debate_usage
-- Tokens of every model call, attributed to the audited (model, run, contract): extraction calls are billed
-- to the extracting model, judge calls to the judge. Failed calls count too: they were paid for. Cache writes
-- and the batch flag are recorded on completed extraction calls (the other kinds are interactive and carry
-- no cache writes in their staging models).
select model, run, contract_id, 'extraction' as stage, model as billed_model, null::varchar as judge,
       input_tokens, output_tokens, cached_tokens, cache_write_tokens, batch_id is not null as batch
from stg_model_calls
union all
select model, run, contract_id, 'extraction', model, null, input_tokens, output_tokens, cached_tokens, 0, false
from stg_model_call_failures
union all
select model, run, contract_id, 'judge', judge, judge, input_tokens, output_tokens, cached_tokens, 0, false
from stg_verdicts
union all
select model, run, contract_id, 'judge', judge, judge, input_tokens, output_tokens, cached_tokens, 0, false
from stg_verdict_failures
union all
-- the debate systems' role and judge calls, attributed to `<backbone>+debate`
select * from int_debate_usage
