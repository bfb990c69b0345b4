-- depends_on: int_scrub_item_sets, int_scrub_gold, contractscrub_scope
-- The item set in scope: how it was made (built by injection from a corpus with a seed, or ingested from a file),
-- its contracts and gold tuples, and the label it carries wherever it is reported.
select s.item_set, s.kind, s.origin, s.seed, s.contracts,
       (select count(*) from int_scrub_gold g where g.item_set = s.item_set
        and g.gold_version = (select gold_version from contractscrub_scope)) as gold, s.provenance
from int_scrub_item_sets s
where s.item_set = (select item_set from contractscrub_scope)
