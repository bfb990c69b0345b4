-- depends_on: stg_scrub_scored
-- The counts of every answered call (recorded or imported), the latest per (model, run, item set, contract,
-- category): scoring.unit_score matched its findings against the gold when it was recorded.
select * from stg_scrub_scored
qualify row_number() over (partition by model, run, item_set, contract_id, category
                           order by time desc, seq desc) = 1
