-- depends_on: stg_scrub_item, stg_review_scrub_item
-- The gold tuples of every recorded item at every gold version, one row each (`injected` when an edit put it into
-- the text; the defined terms are derived from the text by the definition parser; a reviewed defect already in the
-- source has no edit). Version 1 is the gold as recorded; later versions are the items as a review left them.
select item_set, 1 as gold_version, contract_id, g.category, g.term, g.location, g.wrong, g.correct, g.location_2,
       g.distance, g.edit is not null as injected
from (select item_set, contract_id, unnest(gold) as g from stg_scrub_item
      qualify row_number() over (partition by item_set, contract_id order by time desc, seq desc) = 1)
union all
select item_set, gold_version, contract_id, g.category, g.term, g.location, g.wrong, g.correct, g.location_2,
       g.distance, g.edit is not null as injected
from (select item_set, gold_version, contract_id, unnest(gold) as g from stg_review_scrub_item)
