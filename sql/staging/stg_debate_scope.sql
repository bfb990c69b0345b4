-- One row per (debate partition scope, contract) (event debate.scope): which configuration of which kind
-- debated which contracts of which stored subset, and the system name the debated outputs are reported under.
select
    json_extract_string(payload, '$.backbone') as backbone,
    cast(json_extract(payload, '$.run') as integer) as run,
    coalesce(nullif(json_extract_string(payload, '$.system'), ''),
             json_extract_string(payload, '$.backbone') || '+debate'
             || case when json_extract_string(payload, '$.config.calibrated_from') is null then '-generic' else '' end)
        as system,
    json_extract_string(payload, '$.config_name') as config_name,
    json_extract_string(payload, '$.config_hash') as config_hash,
    case when json_extract_string(payload, '$.config.calibrated_from') is null then 'generic' else 'calibrated' end
        as config_kind,
    json_extract_string(payload, '$.corpus_id') as corpus_id,
    json_extract_string(payload, '$.subset') as subset,
    json_extract_string(payload, '$.prompt_version') as prompt_version,
    unnest(from_json(json_extract(payload, '$.contract_ids'), '["VARCHAR"]')) as contract_id,
    stream, time, seq
from events
where type = 'debate.scope'
