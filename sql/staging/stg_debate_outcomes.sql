-- One row per debated instance (event debate.outcome): the baseline and final decision, the final text, how the
-- debate went (rounds, consensus, re-extraction, arbitration, flip) and what it cost (calls, tokens).
select
    json_extract_string(payload, '$.backbone') as backbone,
    cast(json_extract(payload, '$.run') as integer) as run,
    json_extract_string(payload, '$.config_hash') as config_hash,
    json_extract_string(payload, '$.config_name') as config_name,
    json_extract_string(payload, '$.contract_id') as contract_id,
    json_extract_string(payload, '$.clause_type') as clause_type,
    json_extract_string(payload, '$.category') as category,
    json_extract_string(payload, '$.prompt_version') as prompt_version,
    cast(json_extract(payload, '$.baseline_present') as boolean) as baseline_present,
    cast(json_extract(payload, '$.judge_present') as boolean) as judge_present,
    cast(json_extract(payload, '$.final_present') as boolean) as final_present,
    array_to_string(from_json(json_extract(payload, '$.final_quotes'), '["VARCHAR"]'), ' ... ') as final_text,
    cast(json_extract(payload, '$.flipped') as boolean) as flipped,
    cast(json_extract(payload, '$.text_changed') as boolean) as text_changed,
    cast(json_extract(payload, '$.rounds') as integer) as rounds,
    cast(json_extract(payload, '$.consensus') as boolean) as consensus,
    json_extract_string(payload, '$.consensus_position') as consensus_position,
    cast(json_extract(payload, '$.re_extracted') as boolean) as re_extracted,
    cast(json_extract(payload, '$.arbitrated') as boolean) as arbitrated,
    cast(json_extract(payload, '$.calls') as integer) as calls,
    cast(json_extract(payload, '$.reused_calls') as integer) as reused_calls,
    cast(json_extract(payload, '$.input_tokens') as bigint) as input_tokens,
    cast(json_extract(payload, '$.output_tokens') as bigint) as output_tokens,
    cast(json_extract(payload, '$.cached_tokens') as bigint) as cached_tokens,
    stream, time, seq
from events
where type = 'debate.outcome'
