-- depends_on: int_scrub_item_sets, stg_review_gold_version
-- The gold versions of every item set: version 1 is its gold as recorded (built or ingested, before any review);
-- each `lhl review import` makes the next, from the decisions of `reviewed` of the `reviewable` rows of its sheet by
-- `reviewers` reviewers (lhl_platform.review).
select item_set, 1 as gold_version, null::integer as base_version, 0::bigint as reviewed, null::bigint as reviewable,
       0::bigint as reviewers, 0::bigint as changed, 0::bigint as disagreements, time as made_at
from int_scrub_item_sets
union all
select item_set, gold_version, base_version, reviewed::bigint, reviewable::bigint, len(reviewers)::bigint,
       changed::bigint, disagreements::bigint, time as made_at
from stg_review_gold_version
where suite = 'contractscrub'
