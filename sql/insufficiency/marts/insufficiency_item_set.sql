-- depends_on: int_insufficiency_item_sets, insufficiency_scope
-- The item set in scope and where it comes from: a self-built set is labelled so in every report.
select item_set, name, provenance, self_built, base_items, variants, missing_elements, domains, jurisdictions, source
from int_insufficiency_item_sets
where item_set = (select item_set from insufficiency_scope)
