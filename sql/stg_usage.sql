-- Tokens of every model call, attributed to the audited (model, run): extraction calls are billed to
-- the extracting model, judge calls to the judge. Failed calls count too: they were paid for.
select
    json_extract_string(payload, '$.model') as model,
    cast(json_extract(payload, '$.run') as integer) as run,
    case when type in ('model.call', 'model.call_failed') then 'extraction' else 'judge' end as stage,
    coalesce(json_extract_string(payload, '$.judge'), json_extract_string(payload, '$.model')) as billed_model,
    coalesce(cast(json_extract(payload, '$.usage.input_tokens') as bigint), 0) as input_tokens,
    coalesce(cast(json_extract(payload, '$.usage.output_tokens') as bigint), 0) as output_tokens,
    coalesce(cast(json_extract(payload, '$.usage.cached_tokens') as bigint), 0) as cached_tokens
from events
where type in ('model.call', 'model.call_failed', 'verdict.recorded', 'verdict.failed')
