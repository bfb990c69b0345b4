-- The evaluation judge's verdict on every true positive of the debated outputs (event debate.verdict); `reused`
-- marks a verdict taken over from the baseline's identical request.
select
    json_extract_string(payload, '$.judge') as judge,
    json_extract_string(payload, '$.judge_model_id') as judge_model_id,
    json_extract_string(payload, '$.backbone') as backbone,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.config_hash') as config_hash,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.clause_type') as clause_type,
    json_extract_string(payload, '$.verdict') as verdict,
    json_extract_string(payload, '$.mismatch_type') as mismatch_type,
    cast(json_extract(payload, '$.reused') as boolean) as reused,
    json_extract_string(payload, '$.prompt_version') as prompt_version,
    coalesce(cast(json_extract(payload, '$.usage.input_tokens') as bigint), 0) as input_tokens,
    coalesce(cast(json_extract(payload, '$.usage.output_tokens') as bigint), 0) as output_tokens,
    coalesce(cast(json_extract(payload, '$.usage.cached_tokens') as bigint), 0) as cached_tokens,
    coalesce(cast(json_extract(payload, '$.usage.cache_write_tokens') as bigint), 0) as cache_write_tokens,
    time, seq
from events
where type = 'debate.verdict'
