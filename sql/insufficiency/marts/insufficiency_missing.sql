-- depends_on: insufficiency_cells, int_insufficiency_gold, int_insufficiency_responses, int_insufficiency_response_failures, int_insufficiency_judgments, int_insufficiency_judgment_failures, insufficiency_scope, insufficiency_scope_models, insufficiency_scope_runs
-- Every cell in scope without a response, and every response without a judgment by the scope's judge, with the
-- last recorded failure where there is one (a missing answer is reported, never scored as an empty one).
with cells as (
    select distinct model, run, item_set, item from insufficiency_cells
    where item_set = (select item_set from insufficiency_scope)
      and model in (select model from insufficiency_scope_models) and run in (select run from insufficiency_scope_runs)
      and item in (select item from int_insufficiency_gold where item_set = (select item_set from insufficiency_scope)
                   and gold_version = (select gold_version from insufficiency_scope))
),
judged_anywhere as (  -- a judgment imported without its response stands for a response made elsewhere
    select distinct item_set, model, run, item from int_insufficiency_judgments
),
answered as (
    select c.*, r.item is not null or a.item is not null as has_response
    from cells c
    left join int_insufficiency_responses r
        on r.item_set = c.item_set and r.model = c.model and r.run = c.run and r.item = c.item
    left join judged_anywhere a on a.item_set = c.item_set and a.model = c.model and a.run = c.run and a.item = c.item
)
select a.model, a.run, a.item, 'response' as missing, f.finish_reason || ': ' || f.reason as reason
from answered a
left join int_insufficiency_response_failures f
    on f.item_set = a.item_set and f.model = a.model and f.run = a.run and f.item = a.item
where not a.has_response
union all
select a.model, a.run, a.item, 'judgment' as missing, f.stage || ': ' || f.reason as reason
from answered a
left join int_insufficiency_judgments j
    on j.item_set = a.item_set and j.model = a.model and j.run = a.run and j.item = a.item
    and j.judge = (select judge from insufficiency_scope)
left join int_insufficiency_judgment_failures f
    on f.item_set = a.item_set and f.model = a.model and f.run = a.run and f.item = a.item
    and f.judge = (select judge from insufficiency_scope)
where a.has_response and j.item is null
order by model, run, missing desc, item
