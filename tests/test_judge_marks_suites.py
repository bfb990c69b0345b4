"""A suite whose answers a judge scores (InsufficiencyBench) shows its judge's validation where its figures are
read, as the clause report does (tests/test_judge_marks.py): four judges of the same recorded responses, each
through the gate of the held-out set: an LLM judge through the OpenAI SDK against a loopback server that answers
every validation case as labelled (passes), the cue judge (passes the shipped set its rules were written from,
fails the held-out set), an LLM judge that credits one gold element and explains nothing (fails both) and imported
judgments of a judge never validated."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from lhl_platform.domain.models import ModelSpec
from lhl_platform.home import Home
from lhl_platform.insufficiency.calibration import judge_responses, respond
from lhl_platform.insufficiency.offline_judge import MODEL_ID as CUE_JUDGE
from lhl_platform.insufficiency.offline_judge import answer as cue_judge
from lhl_platform.insufficiency.responders import GOLD_READER, PREMATURE_CLOSURE, gold_reader, premature_closure
from lhl_platform.insufficiency.selfbuilt import self_built_items
from lhl_platform.registry import add_model
from lhl_platform.suites import get_suite
from orchestration.cli import main
from orchestration.cli.audit import AuditOptions, run_audit
from tests.fakes import ScriptedServer
from tests.labelled_judges import insufficiency_labelled
from tests.test_insufficiency_llm import FAST, _completion, _openai

STATUS = {"labelled-judge": True, CUE_JUDGE: False, "gpt-judge": False, "second-judge": None}
MODELS = (GOLD_READER, PREMATURE_CLOSURE)


def lhl(home: Home, *args: str) -> int:
    return main(["--home", str(home.root), *args])


def audit(home: Home, judge: str | None = None) -> None:
    """`lhl audit --suite insufficiency` through its one path without the metrics job: the fixture's last audit,
    through the CLI, runs it once for all three."""
    assert run_audit(home, get_suite("insufficiency"), list(MODELS), [1], AuditOptions(judge=judge),
                     say=lambda _: None, metrics=False) == 0


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home.resolve(tmp_path_factory.mktemp("suite-judge-marks")).ensure()
    for name in MODELS:
        assert lhl(home, "models", "add", name, "--provider", "offline", "--model-id", name) == 0
    audit(home)  # the cue judge
    with ScriptedServer() as server, pytest.MonkeyPatch.context() as env:
        env.setenv("OPENAI_API_KEY", "sk-test-secret")
        server.script()
        server.respond = _openai
        add_model(home, ModelSpec(name="gpt-judge", provider="openai", model_id="gpt-test",
                                  base_url=server.url + "/v1", role="judge", params=FAST))
        audit(home, "gpt-judge")
        server.respond = insufficiency_labelled(_openai, _completion)
        add_model(home, ModelSpec(name="labelled-judge", provider="openai", model_id="gpt-labelled",
                                  base_url=server.url + "/v1", role="judge", params=FAST))
        assert lhl(home, "audit", "--suite", "insufficiency", "--models", ",".join(MODELS), "--judge",
                   "labelled-judge") == 0
    items = self_built_items()
    lines = []
    for model, responder in ((GOLD_READER, gold_reader(items)), (PREMATURE_CLOSURE, premature_closure)):
        for j in judge_responses(items, respond(items, responder, model=model), cue_judge, judge_name="second-judge"):
            lines.append(json.dumps(j.model_dump(mode="json")))
    file = home.root / "second-judge.jsonl"
    file.write_text("\n".join(lines) + "\n")
    assert lhl(home, "import", "judgments", str(file)) == 0
    return home


def _report(home: Home, capsys: pytest.CaptureFixture[str], judge: str, fmt: str) -> str:
    capsys.readouterr()
    assert lhl(home, "report", "--suite", "insufficiency", "--judge", judge, "--format", fmt) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("judge", list(STATUS))
def test_a_judged_suites_leaderboard_carries_its_judges_validation_in_every_format(home, capsys, judge):
    status = STATUS[judge]
    report = json.loads(_report(home, capsys, judge, "json"))
    assert {r["model"] for r in report["leaderboard"]} == set(MODELS)
    assert [r["judge_validated"] for r in report["leaderboard"]] == [status] * 2
    assert {c["name"]: c["passed"] for c in report["checks"]}["judge_validated"] is bool(status)

    table = _report(home, capsys, judge, "table")
    board = table[table.index("Leaderboard\n"):table.index("Recall by category")]
    header = board.splitlines()[2]
    assert header.split()[-1] == "judge_validated"
    cells = [line.split()[-1] for line in board.splitlines()[4:4 + len(MODELS)]]
    assert cells == [{True: "yes", False: "no", None: "-"}[status]] * 2
    legend = [line for line in board.splitlines() if line.startswith(f"judge {judge} ")]
    if status:
        assert legend == []
    else:
        assert len(legend) == 1 and ("FAILED" if status is False else "has not been validated") in legend[0]

    page = _report(home, capsys, judge, "html")
    header_html = page[page.index("<header>"):page.index("</header>")]
    assert ('id="judge-banner"' in header_html) == (not status)
    if not status:
        assert f'data-judge-validated="{"" if status is None else "false"}"' in header_html
    # the leaderboard's tables (the judge's validation is among its folded columns)
    board_html = page.split('<section id="leaderboard">')[1].split("</section>")[0]
    values = re.findall(r'data-metric="judge_validated" data-value="([^"]*)"', board_html)
    assert values == ["" if status is None else str(status)] * 2


def test_a_suite_without_a_judge_carries_no_judge_validated():
    from lhl_platform.report.suite_report import judged_suite
    from lhl_platform.suites import suites

    judged = {s.name for s in suites() if judged_suite(s)}
    assert "insufficiency" in judged and "contractscrub" not in judged  # ContractScrub is scored without a judge


def test_compare_in_the_suite_refuses_a_judge_that_failed_its_validation_unless_forced(home, capsys):
    capsys.readouterr()
    args = ("compare", *MODELS, "--suite", "insufficiency", "--resamples", "50")
    assert lhl(home, *args, "--judge", "gpt-judge") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "judge gpt-judge failed held-out validation" in err and "--force" in err
    assert lhl(home, *args, "--judge", "gpt-judge", "--force") == 0
    assert lhl(home, *args, "--judge", CUE_JUDGE) == 1  # it fails held out, whatever it does in-sample
    assert "judge insufficiency-cue-judge failed held-out validation" in capsys.readouterr().err
    for judge in ("labelled-judge", "second-judge"):
        assert lhl(home, *args, "--judge", judge) == 0


def test_publish_writes_the_suites_judge_validation_and_strict_refuses_it(home, capsys, tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'suite.db'}"
    capsys.readouterr()
    assert lhl(home, "publish", url, "--suite", "insufficiency", "--judge", "gpt-judge", "--strict") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--strict" in err and "judge_validated" in err
    assert not (tmp_path / "suite.db").exists() or _scopes(url) == {}
    for judge in STATUS:
        assert lhl(home, "publish", url, "--suite", "insufficiency", "--judge", judge) == 0
    assert _scopes(url) == STATUS
    engine = create_engine(url)
    with engine.connect() as con:
        rows = con.execute(text("select l.judge, l.judge_validated from insufficiency_leaderboard l")).all()
    engine.dispose()
    assert sorted((j, None if v is None else bool(v)) for j, v in rows) == sorted(
        (j, s) for j, s in STATUS.items() for _ in MODELS)


def _scopes(url: str) -> dict[str, bool | None]:
    engine = create_engine(url)
    with engine.connect() as con:
        found = con.execute(text("select scope, judge_validated from suite_publications")).all()
    engine.dispose()
    return {json.loads(s)["judge"]: None if v is None else bool(v) for s, v in found}
