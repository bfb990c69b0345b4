"""Judge validation: a dissociation suite of edits to annotated clauses, with the right answer known.

(a) identical and reformatted text is supported; (b) an edit that changes legal force is
contradicted, with the mismatch type of its kind; (c) a rewrite that keeps legal force is supported.
The rubric judge must pass all three on CUAD and on the demo corpus; the token-overlap judge, which
reads surface form only, must fail (b).
"""

import asyncio
import random
import re
from functools import lru_cache
from pathlib import Path

import pytest

from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import load_demo_corpus
from lhl_platform.domain.models import MismatchType, OracleRow, VerdictLabel
from lhl_platform.domain.taxonomy import category_of
from lhl_platform.edits.force import KINDS, Family, edit_span
from lhl_platform.judging import overlap, rubric
from lhl_platform.lexflip.items import MIN_SUITE_ITEMS, SUITE_VERSION, build_suite
from lhl_platform.lexflip.scoring import THRESHOLDS, ItemScores, run_suite, run_suite_async, score_suite

CLAUSES = [
    ("c1", "Cap On Liability",
     "Except for breaches of Section 10 (Confidentiality), each party's total liability under this Agreement shall "
     "not exceed the fees paid by Licensee to Licensor in the twelve (12) months preceding the claim."),
    ("c2", "Price Restrictions",
     "Supplier shall not increase the price of any Product more than once in any calendar year, and no single "
     "increase shall exceed five percent (5%)."),
    ("c1", "Termination For Convenience",
     "Licensee may terminate this Agreement for convenience upon ninety (90) days' written notice to Licensor, "
     "provided that no prepaid fees shall be refunded."),
    ("c2", "Agreement Date", "This Agreement is made as of March 4, 2024."),
    ("c3", "License Grant",
     "Pursuant to the terms hereof, the Licensor hereby grants to the Licensee a license to use and copy all of "
     "the Software prior to the Effective Date."),
    ("c3", "Anti-Assignment",
     "10.2 The Company shall assign this Agreement only with the prior written consent of the Distributor."),
    ("c4", "Parties", '"Harbor Peak Software, Inc." ("Licensor")'),
]

EXPECTED_MISMATCH = {
    "modality": "obligation", "negation_added": "obligation", "negation_dropped": "obligation",
    "amount": "numeric", "duration": "temporal", "date": "temporal", "before_after": "temporal",
    "all_some": "scope", "party_swap": "other", "condition_dropped": "missing_condition",
    "condition_added": "extra_condition",
}


def rows(clauses=CLAUSES):
    return [OracleRow(contract_id=c, clause_type=t, category=category_of(t), present=True, spans=(s,))
            for c, t, s in clauses]


def kinds_of(family):
    return [k.kind for k in KINDS if k.family is family]


def squash(text):
    return re.sub(r"\s+", " ", text.translate(str.maketrans("“”’", '""\''))).strip().lower()


def test_family_a_identical_and_reformatted_text_is_expected_supported():
    suite = build_suite(rows(), per_kind=5, kinds=kinds_of(Family.IDENTICAL))
    assert {i.kind for i in suite.items} == {"verbatim", "whitespace", "case", "quotes"}
    for item in suite.items:
        assert (item.family, item.expected_verdict, item.expected_mismatch) == (
            Family.IDENTICAL, VerdictLabel.SUPPORTED, MismatchType.NONE)
        assert squash(item.edited) == squash(item.truth[0])  # only the formatting changed
    quoted = [i for i in suite.items if i.kind == "quotes"]
    assert all(i.edited != i.truth[0] for i in quoted)


def test_family_b_edits_that_change_legal_force_are_expected_contradicted_with_their_mismatch():
    suite = build_suite(rows(), per_kind=5, kinds=kinds_of(Family.FORCE_CHANGED))
    assert {i.kind for i in suite.items} == set(EXPECTED_MISMATCH)
    for item in suite.items:
        assert item.expected_verdict is VerdictLabel.CONTRADICTED
        assert item.expected_mismatch.value == EXPECTED_MISMATCH[item.kind]
        assert item.edited != item.truth[0]
    edited = {(i.kind, i.clause_type): i.edited for i in suite.items}
    assert edited[("modality", "Termination For Convenience")].startswith("Licensee shall terminate")
    assert edited[("negation_dropped", "Cap On Liability")].count("shall exceed") == 1
    assert "ten percent (10%)" in edited[("amount", "Price Restrictions")]
    assert "twenty-four (24) months" in edited[("duration", "Cap On Liability")]
    assert re.search(r"March \d+, \d{4}", edited[("date", "Agreement Date")]) and "March 4, 2024" not in edited[
        ("date", "Agreement Date")]
    assert "months following the claim" in edited[("before_after", "Cap On Liability")]
    assert "copy some of the Software" in edited[("all_some", "License Grant")]
    assert "the Licensee hereby grants to the Licensor" in edited[("party_swap", "License Grant")]
    assert edited[("condition_dropped", "Cap On Liability")].startswith("Each party's total liability")
    assert edited[("condition_dropped", "Termination For Convenience")].endswith("written notice to Licensor.")


def test_family_c_rewrites_that_keep_legal_force_are_expected_supported():
    suite = build_suite(rows(), per_kind=5, kinds=kinds_of(Family.FORCE_KEPT))
    assert {i.kind for i in suite.items} == {"plain_english", "number_words", "modal_synonym", "section_numbering",
                                             "reorder", "defined_term_article"}
    for item in suite.items:
        assert (item.expected_verdict, item.expected_mismatch) == (VerdictLabel.SUPPORTED, MismatchType.NONE)
        assert item.edited != item.truth[0]
    edited = {(i.kind, i.clause_type): i.edited for i in suite.items}
    assert "license to copy and use all of the Software" in edited[("reorder", "License Grant")]
    assert edited[("section_numbering", "Anti-Assignment")].endswith(CLAUSES[5][2].removeprefix("10.2 "))
    assert "shall exceed 5%." in edited[("number_words", "Price Restrictions")]
    assert "consent of Distributor." in edited[("defined_term_article", "Anti-Assignment")]
    assert edited[("modal_synonym", "Termination For Convenience")].startswith("Licensee shall have the right to")


def test_an_edit_is_only_made_where_it_applies():
    rng = random.Random(0)
    assert edit_span("modality", "The Effective Date is March 4, 2024.", rng) is None  # no modal verb
    assert edit_span("amount", "Licensee shall pay the fee.", rng) is None  # no amount
    assert edit_span("date", "Licensee may terminate in May.", rng) is None  # "May" without a day or year
    assert edit_span("modality", "Licensee shall pay the fee.", rng) == "Licensee may pay the fee."
    # Under "neither", shall and may say the same: flipping it would not change legal force.
    assert edit_span("modality", "Neither party shall assign this Agreement.", rng) is None


def test_the_suite_is_seeded_versioned_and_independent_of_row_order():
    one = build_suite(rows(), seed=3, per_kind=2)
    again = build_suite(list(reversed(rows())), seed=3, per_kind=2)
    assert one == again and one.digest() == again.digest()
    assert one.version == SUITE_VERSION and one.seed == 3
    assert all(i.unrelated and i.unrelated != i.truth[0] for i in one.items)


def test_precomputed_verdicts_score_like_a_run_and_unanswered_items_fail():
    suite = build_suite(rows(), per_kind=2)
    ran = run_suite(suite, rubric.judge, name="rubric")
    verdicts = [rubric.judge(i.clause_type, i.truth, i.edited) for i in suite.items]
    assert score_suite(suite, verdicts, judge="rubric") == ran
    gaps = score_suite(suite, [None] + verdicts[1:])
    first = suite.items[0].family
    assert gaps.family(first).unanswered == 1
    assert gaps.outcomes[0].as_expected is False
    with pytest.raises(ValueError):
        score_suite(suite, verdicts[:-1])


def test_an_async_judge_runs_the_same_suite_and_a_failed_call_is_unanswered():
    suite = build_suite(rows(), per_kind=2)

    async def llm_like(clause_type, truth, extracted):
        if extracted == suite.items[0].edited:
            raise TimeoutError("provider timed out")
        return rubric.judge(clause_type, truth, extracted)

    result = asyncio.run(run_suite_async(suite, llm_like, concurrency=3))
    assert result.outcomes[0].verdict is None
    assert [o.verdict for o in result.outcomes[1:]] == [o.verdict for o in run_suite(suite, rubric.judge).outcomes[1:]]


def _report(result):
    return "; ".join(f"{f.family}: {f.as_expected} (right mismatch {f.right_mismatch})" for f in result.families)


@lru_cache(maxsize=1)
def _cuad_suite(path: Path):
    return build_suite(load_master_layout(path).oracle, seed=0)


def test_rubric_passes_the_suite_on_cuad(cuad_dir):
    suite = _cuad_suite(cuad_dir)
    assert len(suite.items) >= MIN_SUITE_ITEMS
    assert len({i.clause_type for i in suite.items}) >= 30  # spread over clause types
    result = run_suite(suite, rubric.judge, name=rubric.NAME)
    assert result.passed, _report(result)
    for family in result.families:
        assert family.as_expected >= THRESHOLDS[family.family]
    assert result.family(Family.FORCE_CHANGED).right_mismatch >= 0.70
    assert result.family(Family.FORCE_CHANGED).discrimination is None  # the rubric gives no score


def test_overlap_judge_fails_force_changing_edits_on_cuad(cuad_dir):
    result = run_suite(_cuad_suite(cuad_dir), overlap.judge, scorer=overlap.similarity, name=overlap.NAME)
    changed = result.family(Family.FORCE_CHANGED)
    assert not result.passed and not changed.passed
    assert changed.as_expected < 0.5  # it calls most edits that change legal force "supported"
    assert result.family(Family.IDENTICAL).passed
    assert changed.discrimination is not None and changed.margin is not None
    assert changed.margin < 0.25  # an edit costs little of the identical-to-unrelated similarity range


def test_rubric_passes_and_overlap_fails_on_the_demo_corpus():
    suite = build_suite(load_demo_corpus().oracle, seed=0)
    assert {i.family for i in suite.items} == set(Family)
    rubric_result = run_suite(suite, rubric.judge)
    assert rubric_result.passed, _report(rubric_result)
    overlap_result = run_suite(suite, overlap.judge, scorer=overlap.similarity)
    assert not overlap_result.family(Family.FORCE_CHANGED).passed
    scores = overlap_result.outcomes[0].scores
    assert isinstance(scores, ItemScores) and scores.identical == 1.0 and scores.unrelated < scores.identical
