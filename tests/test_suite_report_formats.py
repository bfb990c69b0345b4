"""Every suite reports in every format (issue #27): table, md, json, html and csv for each suite with a scope of its
own and for the clause suite, `"suite"` in every JSON report; LexFlip, computed in the clause suite's scope, is
refused in one line naming where its results are; `lhl publish --suite S --strict` refuses while a check fails."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from lhl_platform.home import Home
from lhl_platform.insufficiency.selfbuilt import self_built_items
from lhl_platform.scrub.imports import gold_findings
from lhl_platform.scrub.store import load_set
from orchestration.cli import main

SUITES = ("clause", "insufficiency", "contractscrub")
FORMATS = ("table", "md", "json", "html", "csv")


def _lhl(home: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--home", str(home), *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("suite", SUITES)
def test_every_suite_reports_in_every_format(demo_home: Path, capsys: pytest.CaptureFixture[str], suite: str) -> None:
    outputs = {}
    for fmt in FORMATS:
        code, out, err = _lhl(demo_home, capsys, "report", "--suite", suite, "--format", fmt, "--resamples", "50")
        assert code == 0, (fmt, err)
        outputs[fmt] = out
    report = json.loads(outputs["json"])
    assert report["suite"] == suite and list(report)[:2] == ["verdict", "suite"]
    rows = list(csv.DictReader(io.StringIO(outputs["csv"])))
    assert rows and next(iter(rows[0])) == "table"
    models = {r["model"] for r in report["leaderboard"]}
    assert {r["model"] for r in rows if r["table"] == "leaderboard"} == models
    if suite != "clause":  # one CSV table of every section the JSON holds rows for
        sections = {k for k, v in report.items() if isinstance(v, list) and v and k != "checks"}
        costs = {f"cost_{k}" for k, v in report["cost"].items() if isinstance(v, list) and v and k != "unknown"}
        assert rows[0]["table"] == "verdict"  # the verdict first, as in every format
        assert {r["table"] for r in rows} == sections | costs | {"verdict"}  # and the cost section's parts
        board = next(r for r in rows if r["table"] == "leaderboard")
        # a judged suite's leaderboard says whether its judge passed held-out validation (the demo's cue judge
        # does not); a suite scored without a judge has no such column
        assert board.get("judge_validated") == ("false" if suite == "insufficiency" else None)


def test_lexflip_is_refused_in_one_line_naming_where_its_results_are(demo_home: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in FORMATS:
        code, out, err = _lhl(demo_home, capsys, "report", "--suite", "lexflip", "--format", fmt)
        assert (code, out) == (1, "") and err.count("\n") == 1
        assert "`judge_validation` section of `lhl report`" in err
    code, out, _ = _lhl(demo_home, capsys, "report", "--format", "json", "--resamples", "50")
    assert code == 0 and json.loads(out)["judge_validation"]  # where the refusal says they are


@pytest.fixture(scope="module")
def failing(demo_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo home where a model answered part of ContractScrub's calls and part of InsufficiencyBench's
    items (imported), so a check of each suite fails."""
    root = tmp_path_factory.mktemp("failing") / "home"
    shutil.copytree(demo_home, root)
    home = Home.resolve(root)
    scrub = root.parent / "findings.jsonl"
    scrub.write_bytes(b"".join(gold_findings(load_set(home).items, "vendor-x").splitlines(keepends=True)[:3]))
    ids = [i.item_id for i in self_built_items().items]
    responses = root.parent / "responses.jsonl"
    responses.write_text("".join(json.dumps({"model": "elsewhere", "run": 1, "item_id": i, "response": "Which state?"})
                                 + "\n" for i in ids[:2]))
    assert main(["--home", str(root), "import", "findings", str(scrub)]) == 0
    assert main(["--home", str(root), "import", "responses", str(responses)]) == 0
    return root


@pytest.mark.parametrize(("suite", "check"), [("contractscrub", "calls_complete"),
                                              ("insufficiency", "responses_complete")])
def test_strict_publishing_refuses_a_failing_check_for_every_suite(failing: Path, capsys: pytest.CaptureFixture[str],
                                                                   tmp_path: Path, suite: str, check: str) -> None:
    url = f"sqlite:///{tmp_path / 'published.db'}"
    code, _, err = _lhl(failing, capsys, "publish", url, "--suite", suite, "--strict")
    assert code == 1 and err.count("\n") == 1 and "not published (--strict)" in err and check in err
    assert not (tmp_path / "published.db").exists() or (tmp_path / "published.db").stat().st_size == 0
    # without --strict it publishes, the failing check with the rows
    assert _lhl(failing, capsys, "publish", url, "--suite", suite)[0] == 0


@pytest.mark.parametrize("suite", ("insufficiency", "contractscrub"))
def test_a_suite_report_takes_the_resamples_and_seed_it_is_given(demo_home: Path,
                                                                  capsys: pytest.CaptureFixture[str],
                                                                  suite: str) -> None:
    """`--resamples` and `--seed` reach a suite's intervals: the same pair gives the same report, another seed
    other intervals, while the point estimates stay as they are."""
    def board(*flags: str) -> dict[str, dict]:
        code, out, err = _lhl(demo_home, capsys, "report", "--suite", suite, "--format", "json", *flags)
        assert code == 0, err
        return {r["model"]: r for r in json.loads(out)["leaderboard"]}

    interval = ("f2_ci_low", "f2_ci_high") if suite == "insufficiency" else ("recall_ci_low", "recall_ci_high")
    point = "f2" if suite == "insufficiency" else "recall"
    seven, again, other = (board("--resamples", "60", "--seed", s) for s in ("7", "7", "8"))
    assert seven == again
    assert {m: r[point] for m, r in seven.items()} == {m: r[point] for m, r in other.items()}
    assert {m: tuple(r[k] for k in interval) for m, r in seven.items()} != {
        m: tuple(r[k] for k in interval) for m, r in other.items()}
