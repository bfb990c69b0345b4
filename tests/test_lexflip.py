"""LexFlip: does a judge read legal force? Every judge gets, per family and edit kind, normalised scores of the
truth against its identical text, the edited text and an unrelated span, the discrimination share and the margin
(the share of the identical-to-unrelated range the edit costs), beside the gate."""

from __future__ import annotations

import json

import pytest

from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import save_corpus
from lhl_platform.home import Home
from lhl_platform.lexflip.scoring import ItemScores, normalise
from orchestration.cli import main


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.resolve(tmp_path_factory.mktemp("lexflip")).ensure()
    save_corpus(home, load_master_layout(DEMO_DIR), source=str(DEMO_DIR))
    assert main(["--home", str(home.root), "models", "add", "surface", "--provider", "offline", "--model-id",
                 "overlap", "--role", "judge"]) == 0
    return home


def _validate(home: Home, judge: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["--home", str(home.root), "judge", "validate", "--judge", judge, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def _kinds(result: dict, family: str) -> list[dict]:
    return [k for k in result["kinds"] if k["family"] == family]


def test_a_similarity_metric_ranks_identical_above_unrelated_yet_spends_almost_nothing_on_a_flip(home, capsys):
    code, result = _validate(home, "surface", capsys)
    assert code == 2 and not result["passed"]  # the gate fails it: it calls force-changing edits supported
    fam = {f["family"]: f for f in result["families"]}
    assert fam["unrelated"]["as_expected"] == 1.0 and fam["identical"]["as_expected"] == 1.0
    changed = fam["force_changed"]
    assert changed["score_identical"] > changed["score_edited"] > changed["score_unrelated"]
    assert changed["margin"] < 0.25  # a small share of its range, though it does tell identical from unrelated
    assert all(k["margin"] is not None and k["margin"] < 0.5 for k in _kinds(result, "force_changed"))


def test_a_judge_that_reads_force_in_sample_spends_the_whole_range_on_a_flip_and_none_on_a_rewrite(home, capsys):
    code, result = _validate(home, "rubric", capsys)
    # its rules were written from the edit list: it passes in-sample, which never validates, and fails held out
    assert result["in_sample_passed"] and not result["passed"] and code == 2
    for kind in _kinds(result, "force_changed"):
        assert kind["discrimination"] == pytest.approx(1.0) and kind["margin"] == pytest.approx(1.0), kind["kind"]
    for kind in _kinds(result, "force_kept"):
        assert kind["margin"] == pytest.approx(0.0), kind["kind"]


def test_every_score_is_an_event_so_a_rerun_asks_the_judge_nothing(home, capsys):
    def calls() -> int:
        return sum(e.type == "model.call" for e in home.events.read("judge-validation.judge=surface"))

    _validate(home, "surface", capsys)
    before = calls()
    scores = [e for e in home.events.read("judge-validation.judge=surface") if e.type == "judge.validation_score"]
    assert before > 0 and len(scores) >= 3 * 100
    _validate(home, "surface", capsys)
    assert calls() == before


def test_scores_are_min_max_normalised_per_scorer():
    raw = [ItemScores(identical=8, edited=6, unrelated=2), ItemScores(identical=10, edited=9, unrelated=4), None]
    out = normalise(raw)
    assert out[2] is None and out[0] is not None and out[1] is not None
    assert (out[0].unrelated, out[1].identical) == (0.0, 1.0) and out[0].edited == pytest.approx(0.5)


def test_lhl_suites_lists_the_edit_set_the_judges_were_validated_on_as_self_built(home, capsys):
    _validate(home, "rubric", capsys)
    assert main(["--home", str(home.root), "suites"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "lexflip judge-suite" in line]
    assert len(lines) == 1 and "self-built; edits of corpus" in lines[0], lines


def test_a_judge_that_cannot_be_called_here_is_named_not_validated_and_the_others_are_validated(tmp_path,
                                                                                               monkeypatch):
    from lhl_platform.lexflip.stages import judge_validation
    from lhl_platform.suites.contract import NoConfig, StageContext

    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    home = Home.resolve(tmp_path / "home").ensure()
    save_corpus(home, load_master_layout(DEMO_DIR), source=str(DEMO_DIR))
    assert main(["--home", str(home.root), "models", "add", "gemini-judge", "--provider", "gemini", "--model-id",
                 "gemini-3-flash", "--role", "judge"]) == 0
    result = judge_validation(StageContext(home=home, model=None, run=None, config=NoConfig()))
    assert result.metadata["not_validated"] == "gemini-judge"
    assert [name for name, _ in result.failures] == ["gemini-judge"] and "GEMINI_API_KEY" in result.failures[0][1]
    assert result.metadata["judges"] >= 1  # the offline rubric judge was validated all the same
    table = str(result.metadata["validation"])
    assert "| held out | validated |" in table and "| rubric |" in table and "yes (in-sample)" in table
    assert "clause-heldout-v1: fails" in table
    # the primary judge (rubric) passes in-sample only, so the held-out gate's check fails, naming it
    assert not result.checks[0].passed and "rubric does not pass every held-out set" in result.checks[0].summary


def test_a_judge_that_failed_its_validation_is_not_made_primary_unless_forced_and_then_it_warns(home, capsys):
    from lhl_platform.registry import primary_judge

    code, result = _validate(home, "surface", capsys)  # overlap: fails the force-changing gate
    assert result["passed"] is False
    assert main(["--home", str(home.root), "judge", "primary", "surface"]) == 1
    refused = capsys.readouterr()
    assert refused.err.count("\n") == 1 and "it failed held-out validation (clause-heldout-v1" in refused.err
    assert "--force" in refused.err and primary_judge(home) == "rubric"  # nothing changed
    assert main(["--home", str(home.root), "judge", "primary", "surface", "--force"]) == 0
    forced = capsys.readouterr()
    assert "primary judge: surface" in forced.out and primary_judge(home) == "surface"
    assert forced.err.count("\n") == 1 and "though it failed held-out validation" in forced.err
    assert main(["--home", str(home.root), "judge", "primary", "rubric", "--force"]) == 0  # the home as it was


def test_a_judge_never_validated_is_made_primary_with_a_note(tmp_path, capsys):
    home = Home.resolve(tmp_path / "home").ensure()
    assert main(["--home", str(home.root), "models", "add", "fresh", "--provider", "offline", "--model-id",
                 "overlap", "--role", "judge"]) == 0
    capsys.readouterr()
    assert main(["--home", str(home.root), "judge", "primary", "fresh"]) == 0
    out = capsys.readouterr()
    assert "primary judge: fresh" in out.out and "it has not been validated" in out.out and out.err == ""
