-- Formulas every suite shares, defined once and loaded before any model.
-- A ratio with a zero denominator is null, never 0: nothing was measured.
create or replace macro ratio(numerator, denominator) as numerator / nullif(denominator, 0)::double;
-- The cost of the calls `counted` selects: unknown (null) when any of them has an unknown cost, so a total never
-- passes an unpriced call off as free.
create or replace macro cost_total(cost, counted) as
    case when count(*) filter (where counted and cost is null) > 0 then null else sum(cost) filter (where counted) end;
