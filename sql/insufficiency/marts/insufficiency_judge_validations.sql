-- depends_on: stg_insufficiency_judge_validated, insufficiency_scope
-- The scope judge's latest validation on the hand-labelled set, per validation-set digest: `passed` is the held-out
-- gate's (the held-out set's result; null for a result recorded before the gate, which validates nothing), the
-- shipped set's result (`in_sample_passed`, which the cue judge's rules were written from) is reported and never
-- validates; the share of labels reproduced per criterion on each set (the report says whether the digests are the
-- current sets').
select judge, judge_version, suite_version, suite_digest, cases, unanswered,
       case when gate = 'held_out' then passed end as passed,
       list_filter(criteria, lambda c: c.name = 'identification')[1].rate as identification,
       list_filter(criteria, lambda c: c.name = 'claimed_anything_missing')[1].rate as claimed_anything_missing,
       list_filter(criteria, lambda c: c.name = 'over_flag')[1].rate as over_flag,
       list_filter(criteria, lambda c: c.name = 'additional_claims_count')[1].rate as additional_claims_count,
       list_filter(criteria, lambda c: c.name = 'explanation')[1].rate as explanation,
       list_filter(criteria, lambda c: c.name = 'fabrication')[1].rate as fabrication,
       f2_mean_abs_diff, array_to_string(required_failed, ', ') as required_failed, time as validated_at,
       'held_out' as gate,
       coalesce(in_sample_passed, case when gate is null then passed end) as in_sample_passed,
       held_out_set, held_out_digest, held_out_cases,
       list_filter(held_out_criteria, lambda c: c.name = 'identification')[1].rate as held_out_identification,
       list_filter(held_out_criteria, lambda c: c.name = 'claimed_anything_missing')[1].rate
           as held_out_claimed_anything_missing,
       list_filter(held_out_criteria, lambda c: c.name = 'over_flag')[1].rate as held_out_over_flag,
       list_filter(held_out_criteria, lambda c: c.name = 'additional_claims_count')[1].rate
           as held_out_additional_claims_count,
       list_filter(held_out_criteria, lambda c: c.name = 'explanation')[1].rate as held_out_explanation,
       list_filter(held_out_criteria, lambda c: c.name = 'fabrication')[1].rate as held_out_fabrication,
       held_out_f2_mean_abs_diff,
       coalesce(array_to_string(list_transform(list_filter(held_out_criteria, lambda c: not c.passed),
                                               lambda c: c.name), ', '), '') as held_out_failed
from stg_insufficiency_judge_validated
where judge = (select judge from insufficiency_scope)
qualify row_number() over (partition by judge, suite_digest order by time desc, seq desc) = 1
order by validated_at desc
