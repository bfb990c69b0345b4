-- depends_on: int_scrub_scores, scrub_units, contractscrub_scope, contractscrub_scope_models
-- Recall of incorrect section references by the character distance from the reference to the section it should
-- point to, per model and bucket (up to and past 10,000 characters), pooled over the calls in scope. Gold without
-- a distance (a release that does not record it) is in no bucket.
with counts as (
    select s.model, d.position, d.bucket, d.gold, d.tp
    from (select model, run, contract_id, category, unnest(by_distance) as d from int_scrub_scores
          where item_set = (select item_set from contractscrub_scope)
            and gold_version = (select gold_version from contractscrub_scope)) s
    semi join scrub_units u on u.model = s.model and u.run = s.run and u.unit = s.contract_id
        and u.category = s.category
)
select model, bucket, any_value(position) as position, sum(gold)::bigint as gold, sum(tp)::bigint as tp,
       ratio(sum(tp), sum(gold)) as recall
from counts
group by model, bucket
order by model, position
