"""The figure cache (`lhl_platform/report/figure_cache.py`): the clause report is computed once per build, scope
request, resamples and seed, and served from the home after that. A served report equals the one computed afresh;
a refresh after a new audit changes what is served; an entry altered in the home is not served."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
from pathlib import Path

import pytest

from lhl_platform.events.cache_key import cache_key
from lhl_platform.home import Home
from lhl_platform.home_cache import folder as served_folder
from lhl_platform.report.figure_cache import folder
from orchestration.cli import main


@pytest.fixture(autouse=True)
def figure_cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LHL_FIGURE_CACHE", "on")  # the test suite turns it off for the shared demo home (conftest)


@pytest.fixture(scope="module")
def demo_copy(demo_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("figure-cache") / "demo"
    shutil.copytree(demo_home, home)
    return home


def _entries(home: Path) -> list[Path]:
    return sorted(folder(Home.resolve(home)).glob("*.json"))


def _report(capsys: pytest.CaptureFixture[str], home: Path, fmt: str = "json", *argv: str) -> str:
    # the printed report is kept too (tests/test_served_report.py); without it, every report reads the figures
    shutil.rmtree(served_folder(Home.resolve(home), "reports"), ignore_errors=True)
    assert main(["--home", str(home), "report", "--format", fmt, "--resamples", "200", *argv]) == 0
    return capsys.readouterr().out


def test_a_served_report_equals_the_one_computed_afresh_in_every_format(demo_copy: Path, capsys) -> None:
    shutil.rmtree(folder(Home.resolve(demo_copy)), ignore_errors=True)
    computed = {fmt: _report(capsys, demo_copy, fmt) for fmt in ("json", "md")}  # json computes, md is served
    assert len(_entries(demo_copy)) == 1
    served = {fmt: _report(capsys, demo_copy, fmt) for fmt in ("json", "md")}
    shutil.rmtree(folder(Home.resolve(demo_copy)))
    afresh = {fmt: _report(capsys, demo_copy, fmt) for fmt in ("md", "json")}  # md computes now, json is served
    assert served == computed == afresh
    # Another seed is another entry, with other intervals.
    other = json.loads(_report(capsys, demo_copy, "json", "--seed", "1"))
    assert len(_entries(demo_copy)) == 2
    assert other["leaderboard"] != json.loads(computed["json"])["leaderboard"]


def test_an_entry_is_served_only_with_its_seal(demo_copy: Path, capsys) -> None:
    shutil.rmtree(folder(Home.resolve(demo_copy)), ignore_errors=True)
    computed = _report(capsys, demo_copy)
    [path] = _entries(demo_copy)
    entry = json.loads(path.read_text())
    body = json.loads(entry["body"])
    body["checks"][0]["summary"] = "read back from the figure cache"
    altered = json.dumps(body)
    # Altered in the home without its seal: not served, computed again (and the entry written afresh).
    path.write_text(json.dumps({"seal": entry["seal"], "body": altered}))
    assert _report(capsys, demo_copy) == computed
    # Sealed with the key: served as it stands, which shows the report is read from the entry.
    key = cache_key()
    assert key is not None
    seal = hmac.new(key, f"{path.stem}\n{altered}".encode(), hashlib.sha256).hexdigest()
    path.write_text(json.dumps({"seal": seal, "body": altered}))
    assert "read back from the figure cache" in _report(capsys, demo_copy)


def test_a_refresh_after_a_new_audit_changes_the_served_figures(demo_home: Path, tmp_path: Path, capsys) -> None:
    home = tmp_path / "demo"
    shutil.copytree(demo_home, home)
    before = _report(capsys, home)
    assert _report(capsys, home) == before  # served
    assert main(["--home", str(home), "models", "add", "lex2", "--provider", "offline", "--model-id", "lexical"]) == 0
    assert main(["--home", str(home), "audit", "--models", "lex2", "--runs", "1", "--contracts", "2"]) == 0
    capsys.readouterr()
    after = _report(capsys, home)
    models = {r["model"] for r in json.loads(after)["leaderboard"]}
    assert "lex2" in models and "lex2" not in {r["model"] for r in json.loads(before)["leaderboard"]}
    shutil.rmtree(folder(Home.resolve(home)))
    assert _report(capsys, home) == after  # what was served after the refresh is what a computation gives


def test_another_scope_gets_its_own_entry_and_its_own_figures(demo_copy: Path, capsys) -> None:
    whole = _report(capsys, demo_copy)
    before = len(_entries(demo_copy))
    run_one = _report(capsys, demo_copy, "json", "--runs", "1")
    assert len(_entries(demo_copy)) == before + 1 and run_one != whole
    assert _report(capsys, demo_copy, "json", "--runs", "1") == run_one and len(_entries(demo_copy)) == before + 1


def test_a_switch_that_is_neither_on_nor_off_is_refused_in_one_line(demo_copy: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("LHL_FIGURE_CACHE", "sometimes")
    assert main(["--home", str(demo_copy), "report", "--format", "json"]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "LHL_FIGURE_CACHE='sometimes' is neither on nor off" in err
