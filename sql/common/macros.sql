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
-- Detection rates from counts (true positives, false positives, false negatives), each null where its denominator
-- is 0. Every suite's marts compute them through these, and Python has DuckDB run the same text
-- (lhl_platform/stats/rates.py), so each formula is written once.
create or replace macro recall_rate(tp, fn) as ratio(tp, tp + fn);
create or replace macro precision_rate(tp, fp) as ratio(tp, tp + fp);
create or replace macro f1_score(tp, fp, fn) as ratio(2 * tp, 2 * tp + fp + fn);
-- F2 = 5PR / (4P + R), recall weighted four times precision; 0 when both are 0.
create or replace macro f2_score(p, r) as case when 4 * p + r = 0 then 0.0 else 5 * p * r / (4 * p + r) end;
-- A suite's calls summed per (model under test, run, stage, role, billed model, day), the rows every suite's cost
-- marts read (its `*cost_runs` part): each sum of cost unknown (null) when any call in it is, the batch calls' cost
-- beside what they would have cost at the registered interactive rates. `calls` names a relation (a CTE) of the
-- suite's calls in scope with the columns model, run, stage, role, billed_model, time, batch, cost_usd,
-- price_source and the token counts. The model that calls it gives the order of its rows.
create or replace macro cost_runs(calls) as table
    select c.model, c.run, c.stage, c.role, c.billed_model, left(c.time, 10) as day,
           count(*) as calls, count(*) filter (where c.batch) as batch_calls,
           count(*) filter (where c.cost_usd is null) as unknown_cost_calls,
           sum(c.input_tokens) as input_tokens, sum(c.output_tokens) as output_tokens,
           sum(c.cached_tokens) as cached_tokens,
           cost_total(c.cost_usd, true) as cost_usd,
           cost_total(c.cost_usd, c.batch) as batch_cost_usd,
           cost_total(interactive_cost(c.cost_usd, c.price_source, c.input_tokens, c.cached_tokens,
                                       c.cache_write_tokens, c.output_tokens, p.input_price, p.cached_price,
                                       p.cache_write_price, p.output_price),
                      c.batch) as batch_interactive_cost_usd
    from query_table(calls) c
    left join int_model_prices p on p.name = c.billed_model
    group by all;
-- Per model and billed model: what its batch calls cost beside what they would have cost interactively, from a
-- suite's cost rows (`runs`: the name of its `cost_runs` relation); the saved share null where the interactive
-- cost is unknown or 0.
create or replace macro batch_savings_of(runs) as table
    with batch as (
        select model, billed_model, sum(batch_calls) as batch_calls,
               cost_total(batch_cost_usd, batch_calls > 0) as batch_cost_usd,
               cost_total(batch_interactive_cost_usd, batch_calls > 0) as interactive_cost_usd
        from query_table(runs)
        where batch_calls > 0
        group by model, billed_model
    )
    select model, billed_model, batch_calls, batch_cost_usd, interactive_cost_usd,
           interactive_cost_usd - batch_cost_usd as saved_usd,
           ratio(interactive_cost_usd - batch_cost_usd, interactive_cost_usd) as saved_share
    from batch;
-- Per monitored model (its latest registration says so) and run: the days its calls span, their count and cost,
-- from a suite's cost rows (`runs`: the name of its `cost_runs` relation).
create or replace macro cost_over_time_of(runs) as table
    with latest as (
        select name as model, coalesce(params.monitor, false) as monitored
        from stg_model_registered
        qualify row_number() over (partition by name order by time desc, seq desc) = 1
    )
    select model, run, min(day) as first_day, max(day) as last_day, sum(calls) as calls,
           sum(unknown_cost_calls) as unknown_cost_calls, cost_total(cost_usd, true) as cost_usd
    from query_table(runs)
    where model in (select model from latest where monitored)
    group by model, run;
-- Per model, stage, role and billed model: the runs, calls, tokens and cost of a suite's cost rows (`runs`: the
-- name of its `cost_runs` relation); a cost holding a call of unknown cost is unknown (null).
create or replace macro cost_by_stage_of(runs) as table
    select model, stage, role, billed_model, count(distinct run) as runs, sum(calls) as calls,
           sum(batch_calls) as batch_calls, sum(unknown_cost_calls) as unknown_cost_calls,
           sum(input_tokens) as input_tokens, sum(output_tokens) as output_tokens, sum(cached_tokens) as cached_tokens,
           cost_total(cost_usd, true) as cost_usd
    from query_table(runs)
    group by model, stage, role, billed_model;
-- Per model in a suite's scope (`models`: the name of a relation listing them in its column `model`): what all its
-- calls in scope cost (`runs`: the name of its `cost_runs` relation) per correct result (`units`: the name of a
-- relation whose column `tp` counts them per model; `unit_name` says what one is). The cost per correct is null
-- when it has none or any of its calls has an unknown cost (`cost_per`), and the cost null where no call was
-- recorded (imported results): nothing was measured. The model that calls it gives the order of its rows.
create or replace macro cost_per_correct_of(runs, units, models, unit_name) as table
    with cost as (
        select model, sum(calls) as calls, sum(unknown_cost_calls) as unknown_cost_calls,
               cost_total(cost_usd, true) as cost_usd
        from query_table(runs)
        group by model
    ),
    correct as (
        select model, sum(tp) as correct from query_table(units) group by model
    )
    select m.model, c.calls, c.unknown_cost_calls, k.correct, unit_name as unit,
           c.cost_usd, cost_per(c.cost_usd, k.correct) as cost_per_correct_usd
    from (select distinct model from query_table(models)) m
    left join cost c using (model)
    left join correct k using (model);
-- The gold versions of a suite's item sets (`item_sets`: the name of a relation of its item sets, `item_set`, with
-- the time each one's gold was recorded, `made_at`; `of_suite`: the suite the reviews name): version 1 is a set's
-- gold as recorded, before any review; each `lhl review import` makes the next, from the decisions of `reviewed` of
-- the `reviewable` rows of its sheet by `reviewers` reviewers (lhl_platform.review).
create or replace macro gold_versions_of(item_sets, of_suite) as table
    select item_set, 1 as gold_version, null::integer as base_version, 0::bigint as reviewed,
           null::bigint as reviewable, 0::bigint as reviewers, 0::bigint as changed, 0::bigint as disagreements, made_at
    from query_table(item_sets)
    union all
    select item_set, gold_version, base_version, reviewed::bigint, reviewable::bigint, len(reviewers)::bigint,
           changed::bigint, disagreements::bigint, time as made_at
    from stg_review_gold_version
    where suite = of_suite;
