"""An offline judge that abstains rather than guesses (issue #39, item 2).

`aligned` gives the rubric's reading where an extraction is a local edit of the source (alignment ratio at least
0.8), keeps the rubric's `supported` on a rewrite, calls a passage sharing almost no content term `scope`, and
answers `undetermined` on a rewrite the rubric finds changed. Undetermined verdicts are in no content figure; the
coverage statement says how many there are; the held-out gate reads accuracy on decided items and the share
decided, so abstaining does not validate.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.domain.models import MismatchType, VerdictLabel
from lhl_platform.home import Home
from lhl_platform.judging import aligned
from lhl_platform.lexflip import heldout as clause_heldout
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ScopeRequest
from orchestration.cli import main

SOURCE = ("Licensee shall pay all fees set out in Exhibit A within thirty (30) days after receipt of the invoice, "
          "unless disputed in good faith.")  # 20 canonical terms


def _judge(text: str):
    return aligned.judge("Payment Terms", SOURCE, text)


def test_a_reformatted_extraction_is_a_local_edit_and_supported():
    text = SOURCE.replace("thirty (30)", "30")  # the same canonical terms
    assert aligned.alignment(SOURCE, text) == (1.0, 1.0)
    verdict = _judge(text)
    assert verdict.verdict is VerdictLabel.SUPPORTED and verdict.reason.startswith("local edit (alignment 1.00)")


@pytest.mark.parametrize(("edited", "mismatch"), [("Licensee may pay", MismatchType.OBLIGATION),
                                                  ("sixty (60) days", MismatchType.TEMPORAL)])
def test_a_local_edit_that_changes_force_gets_the_rubrics_mismatch(edited, mismatch):
    text = SOURCE.replace("Licensee shall pay" if "pay" in edited else "thirty (30) days", edited)
    ratio, _ = aligned.alignment(SOURCE, text)
    assert ratio == pytest.approx(2 * 19 / 40)  # one term of 20 replaced on each side
    verdict = _judge(text)
    assert (verdict.verdict, verdict.mismatch_type) == (VerdictLabel.CONTRADICTED, mismatch)


def test_a_rewrite_the_rubric_finds_changed_is_undetermined_not_contradicted():
    text = ("Unless it disputes them in good faith, the Licensee has to settle every fee listed in Exhibit A no "
            "later than thirty days from the date it receives the invoice.")
    ratio, overlap = aligned.alignment(SOURCE, text)
    assert ratio < aligned.MIN_ALIGNMENT and overlap > aligned.MAX_FOREIGN
    verdict = _judge(text)
    assert verdict.verdict is VerdictLabel.UNDETERMINED and verdict.mismatch_type is MismatchType.NONE
    assert not verdict.decided and "rephrasing" in verdict.reason


@pytest.mark.parametrize("text", ["This Agreement shall be governed by the laws of the State of New York.", "  "])
def test_another_passage_or_nothing_is_a_scope_contradiction(text):
    verdict = _judge(text)
    assert (verdict.verdict, verdict.mismatch_type) == (VerdictLabel.CONTRADICTED, MismatchType.SCOPE)


def _cli(root: Path, *args: str) -> int:
    return main(["--home", str(root), *args])


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from lhl_platform.suites import get_suite
    from orchestration.cli.audit import AuditOptions, run_audit

    root = tmp_path_factory.mktemp("aligned")
    assert _cli(root, "ingest", "cuad", str(DEMO_DIR)) == 0
    assert _cli(root, "models", "add", "lexical", "--provider", "offline", "--model-id", "lexical") == 0
    assert _cli(root, "models", "add", "aligned", "--provider", "offline", "--model-id", "aligned",
                "--role", "judge") == 0
    assert run_audit(Home.resolve(root), get_suite("clause"), ["lexical"], [1], AuditOptions(judge="aligned"),
                     say=lambda _: None, metrics=False) == 0
    return root


def test_content_figures_rest_on_decided_true_positives_and_the_coverage_names_the_rest(root, capsys):
    with read_warehouse(Home.resolve(root), ScopeRequest(judge="aligned")) as con:
        counts = dict(con.execute("""select verdict, count(*) from instance_outcomes
                                     where model = 'lexical' and outcome = 'TP' group by verdict""").fetchall())
    supported, contradicted = counts.get("supported", 0), counts.get("contradicted", 0)
    undetermined = counts.get("undetermined", 0)
    assert undetermined > 0 and supported > 0 and contradicted > 0 and None not in counts
    capsys.readouterr()
    assert _cli(root, "report", "--judge", "aligned", "--format", "json", "--resamples", "50") == 0
    report = json.loads(capsys.readouterr().out)
    row = next(r for r in report["leaderboard"] if r["model"] == "lexical")
    assert row["hal_tp"] == pytest.approx(contradicted / (supported + contradicted))
    cover = next(c for c in report["coverage"] if c["model"] == "lexical")
    assert (cover["judged_tp"], cover["undetermined_tp"]) == (supported + contradicted, undetermined)
    capsys.readouterr()
    assert _cli(root, "report", "--judge", "aligned", "--resamples", "50") == 0
    table = capsys.readouterr().out
    tps = supported + contradicted + undetermined
    assert (f"judge aligned decided {supported + contradicted} of {tps} true positives; {undetermined} undetermined"
            in table)
    assert f"The judge decided {supported + contradicted} of the {tps} true positives of lexical ({undetermined} " \
           "undetermined)" in table


def test_the_held_out_gate_needs_half_of_each_family_decided(root, capsys):
    capsys.readouterr()
    code = _cli(root, "judge", "validate", "--judge", "aligned", "--format", "json")
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 2 and result["gate"] == "held_out" and result["passed"] is False
    for held in clause_heldout.heldout_sets():
        reported = next(h for h in result["held_out"] if h["set"] == held.header.set)
        for f in reported["families"]:
            items = [i for i in held.items if i.family == f["family"]]
            verdicts = [aligned.judge(i.clause_type, i.truth, i.edited) for i in items]
            decided = [(i, v) for i, v in zip(items, verdicts, strict=True) if v.decided]
            assert (f["items"], f["decided"], f["undetermined"]) == (len(items), len(decided),
                                                                     len(items) - len(decided))
            assert f["decided_share"] == pytest.approx(len(decided) / len(items))
            right = sum(v.verdict is i.expected_verdict for i, v in decided)
            assert f["accuracy_decided"] == (pytest.approx(right / len(decided)) if decided else None)
            if f["decided_share"] < 0.5:  # abstaining fails the family, whatever it got right
                assert f["passed"] is False and f"decided {f['decided_share']:.3f} (needs 0.50)" in captured.err
