-- depends_on: int_calls, int_model_prices
-- partition_by: stream
-- stored_as: parquet
-- Every call's cost in USD. A call costed when it was made keeps the cost it recorded (the price table's or the
-- registration's rates on that day); one whose model neither priced has an unknown cost: null, never 0. An offline
-- algorithm's call (free: 0, unless its owner registered rates for it) and a call recorded before calls were costed
-- are priced at the registered rates of the model that answered (USD per million
-- tokens): input read from the provider's cache at the cached rate, input written to it at the cache-write rate,
-- the rest at the input rate; calls served by a batch API at the batch rates (the batch discount applies to the
-- cache rates too), as lhl_platform.progress.cost_usd prices.
with priced as (
    select c.*,
           greatest(c.input_tokens - c.cached_tokens - c.cache_write_tokens, 0) as fresh_tokens,
           case when coalesce(p.input_price, 0) > 0 then p.batch_input_price / p.input_price else 1 end as discount,
           p.input_price, p.output_price, p.cached_price, p.cache_write_price, p.batch_input_price,
           p.batch_output_price
    from int_calls c
    left join int_model_prices p on p.name = c.model
)
select * exclude (recorded_cost_usd, fresh_tokens, discount, input_price, output_price, cached_price, cache_write_price,
                  batch_input_price, batch_output_price),
       case when price_source = 'unknown' then null
            when price_source is not null and price_source <> 'offline' then recorded_cost_usd
            when batch_id is not null then
           (fresh_tokens * coalesce(batch_input_price, 0)
            + (cached_tokens * coalesce(cached_price, 0) + cache_write_tokens * coalesce(cache_write_price, 0))
              * discount
            + output_tokens * coalesce(batch_output_price, 0)) / 1e6
       else
           (fresh_tokens * coalesce(input_price, 0) + cached_tokens * coalesce(cached_price, 0)
            + cache_write_tokens * coalesce(cache_write_price, 0) + output_tokens * coalesce(output_price, 0)) / 1e6
       end as cost_usd
from priced
