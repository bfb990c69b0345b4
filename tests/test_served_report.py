"""A report as printed is kept in the home and printed again while its build, what was asked and the code are
unchanged (`lhl_platform/report/served.py`, issue #27): the same text as a report rendered afresh, in every format;
another option or a new event gives another; an altered entry is rendered again; a second report loads none of the
report's modules, nor numpy, pyarrow or asyncio."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lhl_platform.home import Home
from lhl_platform.home_cache import folder
from orchestration.cli import main

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import contextlib, io, json, sys
from orchestration.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(json.loads(sys.argv[1]))
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


@pytest.fixture
def home(demo_home: Path, tmp_path: Path) -> Home:
    shutil.copytree(demo_home, tmp_path / "home")
    return Home.resolve(tmp_path / "home")


def _report(home: Home, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str,
            cache: str = "on") -> str:
    monkeypatch.setenv("LHL_FIGURE_CACHE", cache)
    capsys.readouterr()
    assert main(["--home", str(home.root), "report", *args]) == 0
    return capsys.readouterr().out


def _entries(home: Home) -> list[Path]:
    return sorted(folder(home, "reports").glob("*.json"))


@pytest.mark.parametrize("fmt", ["json", "md", "csv", "table", "html"])
def test_a_served_report_is_the_report_rendered_afresh(home, capsys, monkeypatch, fmt) -> None:
    fresh = _report(home, capsys, monkeypatch, "--format", fmt, cache="off")
    assert _entries(home) == []
    first = _report(home, capsys, monkeypatch, "--format", fmt)
    assert len(_entries(home)) == 1
    assert first == fresh
    assert _report(home, capsys, monkeypatch, "--format", fmt) == fresh
    assert len(_entries(home)) == 1


def test_other_options_and_new_events_are_other_entries(home, capsys, monkeypatch) -> None:
    default = _report(home, capsys, monkeypatch, "--format", "json")
    seeded = _report(home, capsys, monkeypatch, "--format", "json", "--seed", "3")
    assert seeded != default
    assert seeded == _report(home, capsys, monkeypatch, "--format", "json", "--seed", "3", cache="off")
    assert len(_entries(home)) == 2
    # a new event (the registry's) changes the build's fingerprint: the report is rendered from the refreshed build
    assert main(["--home", str(home.root), "models", "add", "surface", "--provider", "offline", "--model-id",
                 "overlap", "--role", "judge"]) == 0
    assert main(["--home", str(home.root), "judge", "primary", "surface"]) == 0
    after = _report(home, capsys, monkeypatch, "--format", "json")
    assert after == _report(home, capsys, monkeypatch, "--format", "json", cache="off")
    assert json.loads(after)["scope"]["judge"] == "surface" != json.loads(default)["scope"]["judge"]
    # the report after the event refreshed the build (it was not kept: no up-to-date build was its key); the next
    # one is kept under the refreshed build
    assert len(_entries(home)) == 2
    assert _report(home, capsys, monkeypatch, "--format", "json") == after
    assert len(_entries(home)) == 3


def test_an_altered_entry_is_rendered_again(home, capsys, monkeypatch) -> None:
    fresh = _report(home, capsys, monkeypatch, "--format", "md")
    (entry,) = _entries(home)
    kept = json.loads(entry.read_text())
    entry.write_text(json.dumps({**kept, "body": kept["body"].replace("lexical", "forged")}))
    assert _report(home, capsys, monkeypatch, "--format", "md") == fresh


def test_a_second_report_loads_none_of_the_reports_modules(home, monkeypatch) -> None:
    monkeypatch.setenv("LHL_FIGURE_CACHE", "on")
    argv = json.dumps(["--home", str(home.root), "report", "--format", "json"])

    def modules() -> set[str]:
        done = subprocess.run([sys.executable, "-c", PROBE, argv], capture_output=True, text=True, cwd=ROOT,
                              env=os.environ.copy())
        assert done.returncode == 0, done.stderr[-2000:]
        return set(json.loads(done.stdout.splitlines()[-1])["modules"])

    report_modules = {"lhl_platform.clause.report.build", "lhl_platform.clause.report.rows",
                      "lhl_platform.clause.report.render"}
    assert report_modules <= modules()
    second = modules()
    assert report_modules & second == set()
    # nor the libraries only a computation or a writer needs
    assert {m.split(".")[0] for m in second} & {"numpy", "pyarrow", "asyncio", "pandas", "dagster"} == set()
