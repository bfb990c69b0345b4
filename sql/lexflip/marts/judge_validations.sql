-- depends_on: stg_judge_validated, heldout_sets, scope
-- Each judge's latest validation on the scope's corpus: is it fit to label? A judge is validated (`passed`) only by
-- held-out evidence: its latest result passed every held-out set shipped now (`heldout_sets`, matched by name and
-- hash). A result that lacks one of them (recorded before the set was added, or before the gate) validates nothing
-- (`passed` null: validate again); the in-sample suite's figures are kept beside it and never validate. The report
-- shows the row of its judge, and the judge_validated check fails unless it passed.
with latest as (
    select *
    from stg_judge_validated
    where corpus_id = (select corpus_id from scope)
    qualify row_number() over (partition by judge order by time desc, seq desc) = 1
),
per_set as (  -- each judge against each held-out set shipped now
    select l.judge, s.set,
           list_filter(coalesce(l.held_out_sets, []), lambda h: h.set = s.set and h.sha256 = s.sha256)[1] as h
    from latest l
    cross join heldout_sets s
),
gated as (
    select judge,
           list(set order by set) as held_out_sets,
           coalesce(list(set order by set) filter (where h is null), []) as held_out_missing,
           coalesce(list(set order by set) filter (where not h.passed), []) as held_out_failed,
           bool_and(h is not null) as complete,
           bool_and(coalesce(h.passed, false)) as all_passed
    from per_set
    group by judge
)
select l.judge, l.judge_version, l.suite_version, l.suite_digest, l.items,
       case when g.complete then g.all_passed end as passed,
       cast(l.families->>'$.identical.as_expected' as double) as identical,
       cast(l.families->>'$.force_changed.as_expected' as double) as force_changed,
       cast(l.families->>'$.force_changed.right_mismatch' as double) as right_mismatch,
       cast(l.families->>'$.force_kept.as_expected' as double) as force_kept,
       l.time as validated_at,
       'held_out' as gate,
       coalesce(l.in_sample_passed, case when l.gate is null then l.passed end) as in_sample_passed,
       coalesce(g.held_out_sets, []) as held_out_sets,
       coalesce(g.held_out_missing, []) as held_out_missing,
       coalesce(g.held_out_failed, []) as held_out_failed
from latest l
left join gated g using (judge)
order by l.judge
