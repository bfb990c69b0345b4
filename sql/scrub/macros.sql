-- The nine ContractScrub categories in the report's order, and whether the term-only ablation covers each
-- (lhl_platform/scrub/categories.py; a test holds the two equal).
create or replace macro scrub_categories() as table
    select * from (values
        (1, 'defined_terms', true),
        (2, 'undefined_capitalized_terms', true),
        (3, 'uncapitalized_defined_terms', true),
        (4, 'unused_defined_terms', true),
        (5, 'incorrect_section_references', true),
        (6, 'incorrect_party_references', true),
        (7, 'incorrectly_capitalized_terms', true),
        (8, 'terms_defined_multiple_times', true),
        (9, 'inconsistent_language', false)
    ) t(position, category, has_terms);
-- ContractScrub's calls for the item set in scope: a model's scrubbing, completed or failed, each priced once
-- (`costs`: the name of the priced calls, int_call_costs); the calls `scrub_usage` counts and `scrub_cost_runs`
-- sums. (`costs` is named, not read directly: a table macro without `query_table` is bound when it is made, before the
-- models it reads exist.)
create or replace macro scrub_scope_calls(costs) as table
    with keys as (
        select model, run, request_key from stg_scrub_findings_recorded
        where item_set = (select item_set from contractscrub_scope)
        union
        select model, run, request_key from stg_scrub_findings_failed
        where item_set = (select item_set from contractscrub_scope)
    )
    select c.*
    from query_table(costs) c
    semi join keys k on k.model = c.system and k.run = c.run and k.request_key = c.request_key
    where c.stage = 'scrub'
      and c.system in (select model from contractscrub_scope_models)
      and c.run in (select run from contractscrub_scope_runs);
