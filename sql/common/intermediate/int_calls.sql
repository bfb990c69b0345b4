-- depends_on: stg_model_calls, stg_model_call_failures
-- partition_by: stream
-- stored_as: parquet
-- Every model call of every stage and suite, one row each, completed or failed (a failed call was paid for when it
-- used tokens): which registered model answered (`model`, priced at its rates), for which stage, and whose figures
-- its usage belongs to (`system`, `run`, `item`). Calls recorded before stages were named were extraction calls,
-- or debate role calls (their subject holds a '#'). A call records its cost and where its rates came from
-- (`price_source`: table, registration, offline, unknown) since calls are costed when made; older ones did not.
with calls as (
    select *, true as completed from stg_model_calls
    union all by name
    select *, false as completed from stg_model_call_failures
)
select
    coalesce(nullif(stage, ''), case when contains(subject, '#') then 'debate' else 'extraction' end) as stage,
    model, coalesce(nullif(system, ''), model) as system, coalesce(audit_run, run) as run, run as request_run,
    subject, coalesce(nullif(item, ''), subject) as item, request_key, provider, model_id, prompt_version,
    served_model, completed, error,
    coalesce(usage.input_tokens, 0) as input_tokens, coalesce(usage.output_tokens, 0) as output_tokens,
    coalesce(usage.cached_tokens, 0) as cached_tokens, coalesce(usage.cache_write_tokens, 0) as cache_write_tokens,
    batch_id, latency_s, cost_usd as recorded_cost_usd, price.source as price_source, stream, time, seq
from calls
