-- depends_on: stg_model_registered
-- Each model's registered prices (USD per million tokens), from its latest registration.
select name, provider, model_id, role, input_price, output_price, cached_price, cache_write_price, batch_input_price,
       batch_output_price
from stg_model_registered
qualify row_number() over (partition by name order by time desc, seq desc) = 1
