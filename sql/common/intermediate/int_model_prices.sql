-- depends_on: stg_model_registered
-- Each model's registered prices (USD per million tokens), from its latest registration. Rates registered before
-- they were published default to the rate they discount, as `Price` does.
select name, provider, model_id, coalesce(role, 'extractor') as role,
       coalesce(price.input_per_mtok, 0) as input_price,
       coalesce(price.output_per_mtok, 0) as output_price,
       coalesce(price.cached_input_per_mtok, 0) as cached_price,
       coalesce(price.cache_write_per_mtok, price.input_per_mtok, 0) as cache_write_price,
       coalesce(price.batch_input_per_mtok, price.input_per_mtok, 0) as batch_input_price,
       coalesce(price.batch_output_per_mtok, price.output_per_mtok, 0) as batch_output_price
from stg_model_registered
qualify row_number() over (partition by name order by time desc, seq desc) = 1
