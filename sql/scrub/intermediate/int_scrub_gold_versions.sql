-- depends_on: int_scrub_item_sets, stg_review_gold_version
-- The gold versions of every item set (`gold_versions_of`): version 1 is its gold as recorded (built or ingested,
-- before any review); each `lhl review import` makes the next.
with item_sets as (select item_set, time as made_at from int_scrub_item_sets)
select * from gold_versions_of(item_sets, 'contractscrub')
