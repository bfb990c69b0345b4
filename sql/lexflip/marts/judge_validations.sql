-- depends_on: stg_judge_validated, scope
-- Each judge's latest validation on the scope's corpus: is it fit to label? The report shows the row of its
-- judge, and the judge_validation check fails when the primary judge has not passed.
select judge, judge_version, suite_version, suite_digest, items, passed,
       cast(families->>'$.identical.as_expected' as double) as identical,
       cast(families->>'$.force_changed.as_expected' as double) as force_changed,
       cast(families->>'$.force_changed.right_mismatch' as double) as right_mismatch,
       cast(families->>'$.force_kept.as_expected' as double) as force_kept,
       time as validated_at
from stg_judge_validated
where corpus_id = (select corpus_id from scope)
qualify row_number() over (partition by judge order by time desc, seq desc) = 1
order by judge
