-- depends_on: stg_judge_validated, heldout_sets, scope
-- Each judge's latest validation on the scope's corpus, family by family on every held-out set shipped now (the
-- evidence `judge_validations.passed` rests on): items, how many it decided (supported or contradicted), left
-- undetermined or did not answer, the share decided, its accuracy on what it decided, and the share right on all.
with latest as (
    select *
    from stg_judge_validated
    where corpus_id = (select corpus_id from scope)
    qualify row_number() over (partition by judge order by time desc, seq desc) = 1
),
sets as (
    select l.judge, unnest(l.held_out_sets) as held
    from latest l
),
families as (
    select judge, held.set as set, held.sha256 as sha256, unnest(held.families) as fam
    from sets
)
select judge, set, sha256, fam.family as family, fam.items as items, fam.decided as decided,
       fam.undetermined as undetermined, fam.unanswered as unanswered, fam.decided_share as decided_share,
       fam.accuracy_decided as accuracy_decided, fam.as_expected as as_expected,
       fam.right_mismatch as right_mismatch, fam.passed as passed
from families f
semi join heldout_sets s on s.set = f.set and s.sha256 = f.sha256
order by judge, set, family
