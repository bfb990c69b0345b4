-- depends_on: stg_scrub_scored, stg_review_scrub_scored
-- The counts of every answered call (recorded or imported) at every gold version, the latest per (gold version,
-- model, run, item set, contract, category): scoring.unit_score matched its findings against the gold when it was
-- recorded (version 1), and against each later version's gold when a review made it.
with scores as (
    select 1 as gold_version, * from stg_scrub_scored
    union all by name
    select * from stg_review_scrub_scored
)
select * from scores
qualify row_number() over (partition by gold_version, model, run, item_set, contract_id, category
                           order by time desc, seq desc) = 1
