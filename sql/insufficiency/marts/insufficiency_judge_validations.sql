-- depends_on: stg_insufficiency_judge_validated, insufficiency_scope
-- The scope judge's latest validation on the hand-labelled set, per validation-set digest: passed, and the share
-- of labels reproduced per criterion (the report says whether the digest is the current set's).
select judge, judge_version, suite_version, suite_digest, cases, unanswered, passed,
       list_filter(criteria, lambda c: c.name = 'identification')[1].rate as identification,
       list_filter(criteria, lambda c: c.name = 'claimed_anything_missing')[1].rate as claimed_anything_missing,
       list_filter(criteria, lambda c: c.name = 'over_flag')[1].rate as over_flag,
       list_filter(criteria, lambda c: c.name = 'additional_claims_count')[1].rate as additional_claims_count,
       list_filter(criteria, lambda c: c.name = 'explanation')[1].rate as explanation,
       list_filter(criteria, lambda c: c.name = 'fabrication')[1].rate as fabrication,
       f2_mean_abs_diff, array_to_string(required_failed, ', ') as required_failed, time as validated_at
from stg_insufficiency_judge_validated
where judge = (select judge from insufficiency_scope)
qualify row_number() over (partition by judge, suite_digest order by time desc, seq desc) = 1
order by validated_at desc
