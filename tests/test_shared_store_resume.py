"""kill -9 of a worker auditing against the shared store, mid-append, then a re-run: nothing half committed is
visible (the catalog's chains and every object check out from a home that holds nothing), nothing committed is
lost, and the re-run repeats at most the calls of the durability window (plus those in flight), as on a folder
home (tests/test_resume.py, whose loopback provider and answers this reuses)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace

import pytest

from lhl_platform.clause.extraction.engine import COMMIT_SECONDS, MAX_UNCOMMITTED, extraction_stream
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.events.log import EventLog
from lhl_platform.events.payloads import ModelCall
from lhl_platform.events.verify import verify_log
from lhl_platform.home import Home
from orchestration.cli import main
from tests.fakes import ScriptedServer
from tests.shared_store_support import new_store, s3  # noqa: F401  (a fixture)
from tests.test_publish import postgres  # noqa: F401  (the module-scoped PostgreSQL server fixture)
from tests.test_resume import CONCURRENCY, SLACK_S, _completion, _contract_of

psycopg = pytest.importorskip("psycopg")
STREAM = extraction_stream("local", 1)


def _committed(store: dict[str, str]) -> bool:
    """Whether the catalog has committed a contract's events (its 41 clause records and its call) yet."""
    with psycopg.connect(store["LHL_CATALOG_URL"]) as conn:
        (events,) = conn.execute("SELECT coalesce(sum(count), 0) FROM lhl_segments WHERE stream = %s",
                                 (STREAM,)).fetchone()
    return int(events) >= 42


def _recorded(root) -> set[str]:
    """The request keys of the calls the shared store holds, read by a home that holds nothing yet."""
    return {e.data_as(ModelCall).request_key for e in EventLog(root / "events").read(STREAM) if e.type == "model.call"}


def test_kill_minus_nine_of_a_shared_store_worker_then_rerun_repeats_only_the_durability_window(
        postgres, s3, tmp_path, monkeypatch):  # noqa: F811
    store = new_store(postgres)
    for key, value in store.items():
        monkeypatch.setenv(key, value)
    home = Home.resolve(tmp_path / "worker")
    with ScriptedServer() as server:
        server.script(default=replace(_completion(), delay=0.5))  # slower than the folder's: a commit takes longer
        assert main(["--home", str(home.root), "ingest", "cuad", str(DEMO_DIR)]) == 0
        assert main(["--home", str(home.root), "models", "add", "local", "--provider", "openai", "--model-id",
                     "qwen3-32b", "--base-url", server.url + "/v1", "--params",
                     json.dumps({"concurrency": CONCURRENCY})]) == 0
        command = [sys.executable, "-m", "orchestration.cli", "--home", str(home.root), "audit", "--models", "local"]
        env = {k: v for k, v in os.environ.items() if not k.endswith("API_KEY")}
        first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Killed once a commit of its calls has landed in the catalog, with more of them in flight.
        deadline = time.monotonic() + 180
        while ((len(server.requests) < 6 or not _committed(store)) and time.monotonic() < deadline
               and first.poll() is None):
            time.sleep(0.05)
        os.kill(first.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        first.wait()
        before_kill = list(server.requests)
        assert 6 <= len(before_kill) < 12, "the kill must land mid-partition"

        # What the killed worker left, seen from another machine: committed appends only, every chain and
        # object intact (a segment it uploaded and never committed is invisible).
        recorded = _recorded(tmp_path / "after-kill")
        assert recorded, "calls answered before the kill were committed"
        report = verify_log(EventLog(tmp_path / "after-kill" / "events"))
        assert report.ok and report.objects, report.summary()
        with psycopg.connect(store["LHL_CATALOG_URL"]) as conn:
            rows = conn.execute("SELECT seq, count, prev_head, last_chain FROM lhl_segments WHERE stream = %s "
                                "ORDER BY seq", (STREAM,)).fetchall()
        assert all(b[0] == a[0] + a[1] and b[2] == a[3] for a, b in zip(rows, rows[1:], strict=False))

        # The worker's home again (its mirror as the kill left it), like a restarted pod.
        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert second.returncode == 0, second.stderr[-3000:]
        after = [_contract_of(s) for s in server.requests[len(before_kill):]]

    answered = [s for s in before_kill if s.answered is not None]
    lost = [s for s in answered if _contract_of(s) in after]
    assert all(s.answered > killed_at - COMMIT_SECONDS - SLACK_S for s in lost), (
        "a call answered outside the durability window was made again")
    assert len(lost) <= MAX_UNCOMMITTED
    in_flight = [s for s in before_kill if s.answered is None]
    assert len(in_flight) <= CONCURRENCY
    # The re-run calls exactly the contracts whose call was not committed, each once; nothing committed is lost.
    assert len(after) == 12 - len(recorded) and len(set(after)) == len(after)
    assert len(set(_contract_of(s) for s in before_kill) | set(after)) == 12
    assert recorded <= _recorded(tmp_path / "after-rerun")
    events = EventLog(tmp_path / "after-rerun" / "events").read(STREAM)
    assert sum(e.type == "extraction.recorded" for e in events) == 12 * 41
    assert sum(e.type == "model.call" for e in events) == 12
    assert main(["--home", str(tmp_path / "after-rerun"), "verify"]) == 0
