-- One row per model registration (event model.registered), with its prices in USD per million tokens.
select
    json_extract_string(payload, '$.name') as name,
    json_extract_string(payload, '$.provider') as provider,
    json_extract_string(payload, '$.model_id') as model_id,
    coalesce(json_extract_string(payload, '$.role'), 'extractor') as role,
    coalesce(cast(json_extract(payload, '$.price.input_per_mtok') as double), 0) as input_price,
    coalesce(cast(json_extract(payload, '$.price.output_per_mtok') as double), 0) as output_price,
    coalesce(cast(json_extract(payload, '$.price.cached_input_per_mtok') as double), 0) as cached_price,
    -- rates registered before these were published default to the rate they discount (as Price does)
    coalesce(cast(json_extract(payload, '$.price.cache_write_per_mtok') as double),
             cast(json_extract(payload, '$.price.input_per_mtok') as double), 0) as cache_write_price,
    coalesce(cast(json_extract(payload, '$.price.batch_input_per_mtok') as double),
             cast(json_extract(payload, '$.price.input_per_mtok') as double), 0) as batch_input_price,
    coalesce(cast(json_extract(payload, '$.price.batch_output_per_mtok') as double),
             cast(json_extract(payload, '$.price.output_per_mtok') as double), 0) as batch_output_price,
    time, seq
from events
where type = 'model.registered'
