"""kill -9 of a worker auditing against the shared store, mid-append, then a re-run: nothing half committed is
visible (the catalog's chains and every object check out from a home that holds nothing), nothing committed is
lost, and the re-run repeats at most the calls of the durability window (plus those in flight), as on a folder
home (tests/test_resume.py; both run tests/resume_harness.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lhl_platform.events.log import EventLog
from lhl_platform.events.verify import verify_log
from lhl_platform.home import Home
from tests.resume_harness import CLAUSES, STREAM, ResumeStore, kill_and_resume
from tests.shared_store_support import new_store, s3  # noqa: F401  (a fixture)
from tests.test_publish import postgres  # noqa: F401  (the module-scoped PostgreSQL server fixture)

psycopg = pytest.importorskip("psycopg")


def _committed(store: dict[str, str]) -> bool:
    """Whether the catalog has committed a contract's events (its 41 clause records and its call) yet."""
    with psycopg.connect(store["LHL_CATALOG_URL"]) as conn:
        (events,) = conn.execute("SELECT coalesce(sum(count), 0) FROM lhl_segments WHERE stream = %s",
                                 (STREAM,)).fetchone()
    return int(events) >= CLAUSES + 1


def _left_intact(store: dict[str, str], root: Path) -> None:
    """What the killed worker left, seen from another machine: committed appends only, every chain and object
    intact (a segment it uploaded and never committed is invisible)."""
    report = verify_log(EventLog(root / "events"))
    assert report.ok and report.objects, report.summary()
    with psycopg.connect(store["LHL_CATALOG_URL"]) as conn:
        rows = conn.execute("SELECT seq, count, prev_head, last_chain FROM lhl_segments WHERE stream = %s "
                            "ORDER BY seq", (STREAM,)).fetchall()
    assert all(b[0] == a[0] + a[1] and b[2] == a[3] for a, b in zip(rows, rows[1:], strict=False))


def test_kill_minus_nine_of_a_shared_store_worker_then_rerun_repeats_only_the_durability_window(
        postgres, s3, tmp_path, monkeypatch):  # noqa: F811
    store = new_store(postgres)
    for key, value in store.items():
        monkeypatch.setenv(key, value)
    # The worker's home is re-run as the kill left it (its mirror), like a restarted pod; the store is read after
    # the kill and after the re-run through homes that hold nothing yet, as another machine would.
    kill_and_resume(Home.resolve(tmp_path / "worker"), ResumeStore(
        reply_delay_s=0.5, kill_wait_s=180, rerun_timeout_s=300, view=lambda stage: tmp_path / stage,
        committed=lambda: _committed(store), after_kill=lambda root: _left_intact(store, root)))
