-- depends_on: stg_scrub_items_built, stg_scrub_items_ingested
-- Every recorded item set, its latest recording: how it was made and the label it carries in every report.
with sets as (
    select item_set, 'built' as kind, true as injected, provenance, corpus as origin, seed,
           len(contract_ids) as contracts, time, seq
    from stg_scrub_items_built
    union all
    select item_set, 'ingested' as kind, injected, provenance, file_name as origin, null::bigint as seed,
           items as contracts, time, seq
    from stg_scrub_items_ingested
)
select * exclude (seq) from sets
qualify row_number() over (partition by item_set order by time desc, seq desc) = 1
