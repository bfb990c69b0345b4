"""The SQL digest a read compares with its build's is kept in the home's cache (`warehouse/sql_digest.py`, issue
#27): computing it imports every suite's event payload classes, so a report after the first of the code loads none
that it does not read. What is kept is the computed digest; an altered entry is computed again; a test's own suite
(SQL outside the platform) is never kept."""

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
from lhl_platform.warehouse.sql_digest import computed_sql_digest, registrations_key, sql_digest

ROOT = Path(__file__).resolve().parents[1]
OTHER_SUITES_EVENTS = ("lhl_platform.scrub.events", "lhl_platform.insufficiency.events", "lhl_platform.lexflip.events",
                       "lhl_platform.clause.debate.events")
PROBE = """
import contextlib, io, json, sys
from orchestration.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(json.loads(sys.argv[1]))
print(json.dumps({"code": code, "report": out.getvalue(), "modules": sorted(sys.modules)}))
"""


@pytest.fixture
def home(demo_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    shutil.copytree(demo_home, tmp_path / "home")
    monkeypatch.setenv("LHL_FIGURE_CACHE", "on")  # off for the test run's shared demo home (conftest)
    return Home.resolve(tmp_path / "home")


def _report(home: Home) -> dict[str, object]:
    argv = ["--home", str(home.root), "report", "--format", "json"]
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv)], capture_output=True, text=True, cwd=ROOT,
                          env=os.environ.copy())
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_a_second_report_imports_no_other_suites_event_classes(home: Home) -> None:
    first, second = _report(home), _report(home)
    assert first["code"] == second["code"] == 0
    assert second["report"] == first["report"]
    assert set(OTHER_SUITES_EVENTS) <= set(first["modules"])  # type: ignore[arg-type]  (computed, then kept)
    assert set(OTHER_SUITES_EVENTS) & set(second["modules"]) == set()  # type: ignore[arg-type]
    assert len(list(folder(home, "sql").glob("*.json"))) == 1


def test_the_kept_digest_is_the_computed_one_and_an_altered_entry_is_computed_again(home: Home) -> None:
    assert sql_digest(home) == computed_sql_digest()
    (entry,) = folder(home, "sql").glob("*.json")
    kept = json.loads(entry.read_text())
    entry.write_text(json.dumps({**kept, "body": "0" * 64}))
    assert sql_digest(home) == computed_sql_digest()
    assert json.loads(entry.read_text())["body"] == computed_sql_digest()  # written again, sealed


def test_a_tests_own_sql_package_is_never_kept(home: Home, tmp_path: Path) -> None:
    from lhl_platform.catalog import catalog_with
    from lhl_platform.warehouse.models import register_sql_folder

    assert registrations_key() is not None
    (tmp_path / "outside" / "marts").mkdir(parents=True)
    with catalog_with():  # a package outside the platform's files, which the code digest does not cover
        register_sql_folder(tmp_path / "outside", name="outside")
        assert registrations_key() is None
        assert sql_digest(home) == computed_sql_digest()
    assert not folder(home, "sql").exists()


KEY_BEFORE_AND_AFTER = """
import json
import lhl_platform.catalog
from lhl_platform.registries import active
from lhl_platform.suites import suites
from lhl_platform.warehouse.sql_digest import registrations_key
before = registrations_key()
active().kinds  # every declared event module imported
suites()
print(json.dumps([before, registrations_key()]))
"""


def test_the_key_is_the_same_whichever_event_modules_a_command_imported_first() -> None:
    done = subprocess.run([sys.executable, "-c", KEY_BEFORE_AND_AFTER], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    before, after = json.loads(done.stdout.splitlines()[-1])
    assert before is not None and before == after
