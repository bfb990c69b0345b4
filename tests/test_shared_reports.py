"""Reports shared between the machines of one shared store (`lhl_platform/report/shared.py`): a new pod asked for a
report another machine printed at the same events prints it without fetching a segment; new events are never
served an older report; switched off, nothing is read or recorded; a damaged record is refused by its key and the
report made afresh; `lhl home gc` keeps the reports of the newest states only.

Each machine is its own `lhl` process (as a pod is), on a real PostgreSQL server (tests/test_publish.py's fixture)
and moto's S3 server on loopback (tests/shared_store_support.py). The evidence is one small folder home audited in
two steps, each copied into the store with `lhl home migrate`.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from lhl_platform.events.store import CATALOG_URL_ENV, EVENTS_URL_ENV
from orchestration.cli import main
from tests.helpers import clock_readings_apart
from tests.shared_store_support import s3, set_env  # noqa: F401  (a fixture)
from tests.test_publish import postgres  # noqa: F401  (the module-scoped PostgreSQL server fixture)

psycopg = pytest.importorskip("psycopg")
pytest.importorskip("moto.server", reason="moto[server] is not installed (the dev extra carries it)")

ROOT = Path(__file__).resolve().parents[1]
NO_STORE = {EVENTS_URL_ENV: None, CATALOG_URL_ENV: None}


def _run(home: Path, *argv: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["--home", str(home), *argv]) == 0, argv
    return out.getvalue()


@pytest.fixture(scope="module")
def steps(two_step_homes):
    """(first step's folder home, its report, second step's folder home, its report): one audit of two contracts
    by one offline model, then by a second."""
    first, second = two_step_homes
    with set_env(NO_STORE):
        reports = [clock_readings_apart(json.loads(_run(h, "report", "--format", "json")))[0] for h in (first, second)]
    assert {r["model"] for r in reports[1]["leaderboard"]} == {"lex", "omit"} != \
        {r["model"] for r in reports[0]["leaderboard"]}
    return first, reports[0], second, reports[1]


def _pod(env: dict[str, str], home: Path, *, extra: dict[str, str] | None = None) -> tuple[dict, str]:
    """A machine of its own: `lhl report --format json` in a new process, its kept reports on as a user's are (the
    tests' default is off); (the report, its stderr)."""
    done = subprocess.run([sys.executable, "-m", "orchestration.cli", "--home", str(home), "report", "--format",
                           "json"], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **env, "LHL_FIGURE_CACHE": "on", **(extra or {})}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return clock_readings_apart(json.loads(done.stdout))[0], done.stderr


def _recorded(env: dict[str, str]) -> list[tuple[str, str, int]]:
    with psycopg.connect(env[CATALOG_URL_ENV]) as conn:
        return [tuple(r) for r in conn.execute("SELECT key, sha256, line FROM lhl_shared_reports ORDER BY line")]


def test_a_new_pod_prints_the_report_another_machine_printed_and_never_one_of_other_events(shared, steps, tmp_path,
                                                                                           capsys):
    first, first_report, second, second_report = steps
    _run(first, "home", "migrate")
    assert _pod(shared, tmp_path / "writer")[0] == first_report
    (_, _, line), = _recorded(shared)
    # A new machine: the same report, and not one segment, warehouse build or corpus file in its home.
    assert _pod(shared, tmp_path / "pod")[0] == first_report
    assert sorted(p.name for p in (tmp_path / "pod").rglob("*") if p.suffix in (".parquet", ".duckdb")) == []
    # New events: the old report is never printed for them. Switched off, a pod neither reads nor records one
    # (it computes the report, from the snapshot the writer published); then one that computes it records it.
    _run(second, "home", "migrate")
    off, _ = _pod(shared, tmp_path / "off-pod", extra={"LHL_SHARED_REPORTS": "off"})
    assert off == second_report and any((tmp_path / "off-pod").rglob("*.duckdb")) and len(_recorded(shared)) == 1
    assert _pod(shared, tmp_path / "late-pod")[0] == second_report
    older, newer = _recorded(shared)
    assert older[2] == line < newer[2]
    assert _pod(shared, tmp_path / "later-pod")[0] == second_report
    assert not any((tmp_path / "later-pod").rglob("*.duckdb"))
    # A record altered in the catalog: refused by its key, and the report made afresh.
    forged = json.loads(_body(shared, newer[0]))
    forged["leaderboard"][0]["model"] = "forged"
    with psycopg.connect(shared[CATALOG_URL_ENV]) as conn:
        conn.execute("UPDATE lhl_shared_reports SET body = %s WHERE key = %s",
                     (json.dumps(forged).encode(), newer[0]))
    report, err = _pod(shared, tmp_path / "pod-of-a-forgery")
    assert f"shared report {newer[0]} refused: its bytes differ from the SHA-256 recorded for it" in err
    assert report == second_report
    # gc keeps the reports of the newest N states of the events.
    assert "removed 0 shared reports" in _run(tmp_path / "writer", "home", "gc", "--keep-snapshots", "2")
    assert "removed 1 shared reports" in _run(tmp_path / "writer", "home", "gc", "--keep-snapshots", "1")
    assert _recorded(shared) == [newer]


def _body(env: dict[str, str], key: str) -> bytes:
    with psycopg.connect(env[CATALOG_URL_ENV]) as conn:
        return bytes(conn.execute("SELECT body FROM lhl_shared_reports WHERE key = %s", (key,)).fetchone()[0])


def test_a_switch_that_is_neither_on_nor_off_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LHL_FIGURE_CACHE", "on")
    monkeypatch.setenv("LHL_SHARED_REPORTS", "sometimes")
    assert main(["--home", str(tmp_path / "home"), "report"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["lhl: LHL_SHARED_REPORTS='sometimes' is neither on nor off (give on, off, 1 or 0)"]


LATE_COMMIT = """
import sys

import lhl_platform.catalog  # noqa: F401  (the platform assembled, as a command has it)
from lhl_platform.domain.models import ModelSpec
from lhl_platform.home import Home
from lhl_platform.registry import add_model
from lhl_platform.report.served import served_report

home = Home.resolve(sys.argv[1])


def render_while_a_commit_lands() -> str:
    add_model(home, ModelSpec(name="late", provider="offline", model_id="lexical"))  # a commit, mid-render
    return "made while a commit landed"


print(served_report(home, {"asked": "during"}, render_while_a_commit_lands))
print(served_report(home, {"asked": "after"}, lambda: "made with nothing landing"))
"""


def test_a_report_made_while_a_commit_landed_is_never_recorded_for_either_state(shared, steps, tmp_path):
    # The mirror moved between the head read before the render and the publication: the text may hold some of
    # the new events or none, so it is recorded neither at the old head nor at the new one.
    first, *_ = steps
    _run(first, "home", "migrate")
    done = subprocess.run([sys.executable, "-c", LATE_COMMIT, str(tmp_path / "pod")], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, **shared, "LHL_FIGURE_CACHE": "on"}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["made while a commit landed", "made with nothing landing"]
    recorded = _recorded(shared)
    assert [_body(shared, key) for key, _, _ in recorded] == [b"made with nothing landing"]
