-- depends_on: stg_insufficiency_items_ingested
-- Every ingested item set, once (its latest ingestion): name, provenance (self-built or external) and counts.
select item_set_id as item_set, name, provenance, provenance = 'self-built' as self_built, description, source,
       sha256, base_items, variants, missing_elements, len(domains) as domains, len(jurisdictions) as jurisdictions,
       time as ingested_at
from stg_insufficiency_items_ingested
qualify row_number() over (partition by item_set_id order by time desc, seq desc) = 1
