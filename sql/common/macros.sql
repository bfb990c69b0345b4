-- Formulas every suite shares, defined once and loaded before any model.
-- A ratio with a zero denominator is null, never 0: nothing was measured.
create or replace macro ratio(numerator, denominator) as numerator / nullif(denominator, 0)::double;
