-- Formulas every suite shares, defined once and loaded before any model.
-- A ratio with a zero denominator is null, never 0: nothing was measured.
create or replace macro ratio(numerator, denominator) as numerator / nullif(denominator, 0)::double;
-- The cost of the calls `counted` selects: unknown (null) when any of them has an unknown cost, so a total never
-- passes an unpriced call off as free.
create or replace macro cost_total(cost, counted) as
    case when count(*) filter (where counted and cost is null) > 0 then null else sum(cost) filter (where counted) end;
-- A cost per unit of result (a true positive, a found defect, an identified element): unknown (null) when the cost is
-- unknown or nothing was counted, never a cost per nothing.
create or replace macro cost_per(cost, n) as ratio(cost, n);
-- What a call would have cost at the registered interactive rates (USD per million tokens; fresh input, cache reads,
-- cache writes, output), the reference a batch call's saving is measured against; unknown when its cost is, and
-- when the call was priced by the price table (`price_source` table): the registration holds no rates for it, and
-- a missing rate is not a rate of 0. A call recorded before calls named their price source was priced at the
-- registered rates.
create or replace macro interactive_cost(cost, price_source, input_tokens, cached_tokens, cache_write_tokens,
                                         output_tokens, input_price, cached_price, cache_write_price, output_price) as
    case when cost is not null and coalesce(price_source, 'registration') in ('registration', 'offline') then
        (greatest(input_tokens - cached_tokens - cache_write_tokens, 0) * input_price + cached_tokens * cached_price
         + cache_write_tokens * cache_write_price + output_tokens * output_price) / 1e6 end;
