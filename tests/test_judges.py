"""Judges as a dimension: validated on the dissociation suite, never mixed, their agreement measured."""

import json
import shutil

import pytest

from lhl_platform.domain.models import MismatchType, Usage, VerdictLabel
from lhl_platform.events.payloads import ModelCall
from lhl_platform.home import Home
from lhl_platform.judges import judge_agreement
from lhl_platform.judging.events import VerdictEvent, VerdictRecorded
from lhl_platform.warehouse.build import read_warehouse
from orchestration.cli import main


@pytest.fixture
def demo_copy(demo_home, tmp_path) -> Home:
    home = Home.resolve(tmp_path / "demo")
    shutil.copytree(demo_home, home.root)
    return home


def _json(capsys, *args):
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr().out
    return code, json.loads(out) if code in (0, 2) else out



def _extraction_calls(home: Home) -> int:
    return sum(e.type == "model.call" and e.data_as(ModelCall).stage == "extraction" for e in home.events.read())


def test_rubric_passes_the_suite_in_sample_on_cuad_yet_is_not_validated_and_the_overlap_control_fails(
        cuad_dir, tmp_path, capsys):
    home = str(tmp_path / "h")
    assert main(["--home", home, "ingest", "cuad", str(cuad_dir)]) == 0
    code, rubric = _json(capsys, "--home", home, "judge", "validate", "--judge", "rubric", "--format", "json")
    # in-sample (its rules were written from the edit list) it passes; the gate is held out, and there it fails
    assert rubric["in_sample_passed"] and rubric["items"] >= 300
    assert rubric["gate"] == "held_out" and code == 2 and rubric["passed"] is False
    families = {f["family"]: f for f in rubric["families"]}
    assert families["identical"]["as_expected"] >= 0.95 and families["force_kept"]["as_expected"] >= 0.90
    assert families["force_changed"]["as_expected"] >= 0.90 and families["force_changed"]["right_mismatch"] >= 0.70
    assert main(["--home", home, "models", "add", "surface", "--provider", "offline", "--model-id", "overlap",
                 "--role", "judge"]) == 0
    capsys.readouterr()
    code, control = _json(capsys, "--home", home, "judge", "validate", "--judge", "surface", "--format", "json")
    assert code == 2 and not control["passed"]
    assert {f["family"]: f["passed"] for f in control["families"]}["force_changed"] is False
    assert main(["--home", home, "judge", "validate", "--judge", "surface"]) == 2  # the table form fails loudly


def test_a_second_judge_never_changes_the_default_report(demo_copy, capsys):
    home = str(demo_copy.root)
    code, before = _json(capsys, "--home", home, "report", "--format", "json", "--resamples", "200")
    calls = _extraction_calls(demo_copy)
    assert main(["--home", home, "models", "add", "surface", "--provider", "offline", "--model-id", "overlap",
                 "--role", "judge"]) == 0
    assert main(["--home", home, "audit", "--models", "lexical", "--runs", "1", "--judge", "surface"]) == 0
    capsys.readouterr()
    assert _extraction_calls(demo_copy) == calls  # re-judged, not re-extracted
    code, after = _json(capsys, "--home", home, "report", "--format", "json", "--resamples", "200")
    assert {k: v for k, v in after.items() if k != "statistics"} == {
        k: v for k, v in before.items() if k != "statistics"}
    code, surface = _json(capsys, "--home", home, "report", "--format", "json", "--resamples", "200",
                          "--judge", "surface", "--models", "lexical", "--runs", "1")
    assert surface["scope"]["judge"] == "surface"
    assert surface["leaderboard"][0]["tp"] == next(r for r in before["per_run"]
                                                   if r["model"] == "lexical" and r["run"] == 1)["tp"]


def test_agreement_kappas_equal_a_hand_computation(demo_copy):
    for name, model_id in (("ja", "rubric"), ("jb", "overlap")):
        assert main(["--home", str(demo_copy.root), "models", "add", name, "--provider", "offline", "--model-id",
                     model_id, "--role", "judge"]) == 0
    with read_warehouse(demo_copy) as con:
        tps = con.execute("""select contract_id, clause_type from instance_outcomes
                             where model = 'lexical' and run = 1 and outcome = 'TP'
                             order by contract_id, clause_type limit 10""").fetchall()
    assert len(tps) == 10
    S, C = VerdictLabel.SUPPORTED, VerdictLabel.CONTRADICTED
    none, miss, extra, other = (MismatchType.NONE, MismatchType.MISSING_CONDITION, MismatchType.EXTRA_CONDITION,
                                MismatchType.OTHER)
    # both supported 4, both contradicted 3, A supported / B contradicted 2, A contradicted / B supported 1
    labels = [((S, none), (S, none))] * 4 \
        + [((C, miss), (C, miss)), ((C, extra), (C, extra)), ((C, miss), (C, other))] \
        + [((S, none), (C, other))] * 2 + [((C, extra), (S, none))]
    with demo_copy.events.writer("judge.model=lexical.run=1") as writer:
        for (cid, clause), pair in zip(tps, labels, strict=True):
            for judge, (verdict, mismatch) in zip(("ja", "jb"), pair, strict=True):
                key = f"verdict:{judge}:lexical:1:{cid}:{clause}"
                writer.append(VerdictEvent.RECORDED, f"{cid}/{clause}", key, VerdictRecorded(
                    model="lexical", run=1, contract_id=cid, clause_type=clause, verdict=verdict,
                    mismatch_type=mismatch, reason="", judge=judge, judge_model_id="fixture", prompt_version="fixture",
                    request_key="k", usage=Usage(), latency_s=0.0, params={}))
    result = judge_agreement(demo_copy, "ja", "jb", resamples=200)
    assert result.n == 10
    # p_o = 0.7; A supported 6/10, B supported 5/10: p_e = 0.6 x 0.5 + 0.4 x 0.5 = 0.5; kappa = 0.2 / 0.5
    assert result.kappa_binary == pytest.approx(0.4)
    # both contradicted: (miss, miss), (extra, extra), (miss, other): p_o = 2/3; A: miss 2/3, extra 1/3;
    # B: miss, extra, other 1/3 each: p_e = 2/9 + 1/9 = 1/3; kappa = (1/3) / (2/3)
    assert result.n_direction == 3 and result.kappa_direction == pytest.approx(0.5)
    (lexical,) = result.models
    # A contradicted 4 (miss 2, extra 2) -> RDI 0; B contradicted 5 (miss 1, extra 1, other 3) -> RDI 0
    assert (lexical.rdi_a, lexical.rdi_b) == (pytest.approx(0.0), pytest.approx(0.0))


def test_an_llm_judge_runs_the_same_suite_through_the_provider_and_a_rerun_calls_nothing(tmp_path, monkeypatch):
    # An OpenAI-compatible judge that calls everything supported: the harness rejects it on family (b).
    from lhl_platform.corpus.demo import DEMO_DIR
    from lhl_platform.lexflip.validate import validate_judge
    from tests.fakes import Reply, ScriptedServer

    verdict = {"verdict": "supported", "mismatch_type": "none", "reason": "looks the same"}

    def graded(seen) -> bool:  # LexFlip's 0-10 rating question, beside the verdict
        return "Rate from 0 to 10" in seen.body["messages"][0]["content"]

    def reply(seen):
        answer = {"rating": 9} if graded(seen) else verdict
        return Reply(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "judge-test",
                           "choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(answer)},
                                        "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320}})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge")
    home = Home.resolve(tmp_path / "h")
    with ScriptedServer() as server:
        server.respond = reply
        assert main(["--home", str(home.root), "ingest", "cuad", str(DEMO_DIR)]) == 0
        assert main(["--home", str(home.root), "models", "add", "llm-judge", "--provider", "openai", "--model-id",
                     "judge-test", "--base-url", server.url + "/v1", "--role", "judge",
                     "--params", '{"max_retries": 0, "concurrency": 8}']) == 0
        result = validate_judge(home, "llm-judge", per_kind=3)
        calls = len(server.requests)
        again = validate_judge(home, "llm-judge", per_kind=3)
        assert len(server.requests) == calls  # none on the rerun
        verdicts = [s for s in server.requests if not graded(s)]
        assert result.held_out  # every held-out set is asked too, apart
        items = result.items + sum(h.items for h in result.held_out)
        assert len(verdicts) == items  # one verdict call per item
        assert items <= calls - len(verdicts) <= 3 * result.samples * items  # and k samples of its graded pairs
    assert not result.passed and result.family("force_changed").as_expected == 0.0
    assert result.family("identical").passed and again == result
    # A judge that rates everything 9 reads no force: no discrimination, no margin spent on any edit.
    assert result.family("force_changed").discrimination == 0.0
    assert "judge.validated" in {e.type for e in home.events.read("judge-validation.judge=llm-judge")}
