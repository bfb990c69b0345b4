"""kill -9 of an audit in the middle of a partition, then a re-run, against a store: a folder home
(tests/test_resume.py) or the shared store (tests/test_shared_store_resume.py). What either store must show:
nothing committed is lost, the re-run makes again only calls of the durability window (plus those in flight),
each once, and the home verifies with every contract's 41 records and one call."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lhl_platform.clause.extraction.engine import COMMIT_SECONDS, MAX_UNCOMMITTED, extraction_stream
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.events.payloads import ModelCall
from lhl_platform.home import Home
from orchestration.cli import main
from tests.fakes import Reply, ScriptedServer, Seen, openai_completion

ANSWER = {"clauses": [{"clause_type": c, "present": False, "quotes": []} for c in CLAUSE_TYPES]}
CONTRACTS = 12  # the demo corpus
CLAUSES = 41  # records per contract: one per clause type
CONCURRENCY = 2
# What a commit itself may take on a loaded machine, on top of the commit interval.
SLACK_S = 0.75
STREAM = extraction_stream("local", 1)


@dataclass(frozen=True)
class ResumeStore:
    """What differs between the stores: how slow the provider answers (a shared-store commit takes longer, and
    the kill must still land mid-partition), what else the kill waits for, the time limits, where the store is
    read from after the kill and after the re-run, and the store's own checks of what the kill left."""

    reply_delay_s: float
    kill_wait_s: float
    rerun_timeout_s: float
    view: Callable[[str], Path]  # the home to read the store through at a stage ("after-kill", "after-rerun")
    committed: Callable[[], bool] = lambda: True  # the kill also waits until this holds
    after_kill: Callable[[Path], None] = lambda root: None


def completion(delay: float) -> Reply:
    return Reply(200, openai_completion("local", json.dumps(ANSWER), 1000, 200), delay=delay)


def contract_of(seen: Seen) -> str:
    return hashlib.sha256(seen.body["messages"][-1]["content"].encode()).hexdigest()


def recorded_calls(root: Path) -> set[str]:
    """The request keys of the calls the store holds, read through the home at `root`."""
    return {e.data_as(ModelCall).request_key for e in Home.resolve(root).events.read(STREAM) if e.type == "model.call"}


def kill_and_resume(home: Home, store: ResumeStore) -> None:
    """Audit the demo corpus through a loopback provider in a subprocess, kill -9 it once some calls are answered
    (and `store.committed()`), re-run the audit, and check what both runs called and what the store holds."""
    with ScriptedServer() as server:
        server.script(default=completion(store.reply_delay_s))
        assert main(["--home", str(home.root), "ingest", "cuad", str(DEMO_DIR)]) == 0
        assert main(["--home", str(home.root), "models", "add", "local", "--provider", "openai", "--model-id",
                     "qwen3-32b", "--base-url", server.url + "/v1", "--params",
                     json.dumps({"concurrency": CONCURRENCY})]) == 0
        command = [sys.executable, "-m", "orchestration.cli", "--home", str(home.root), "audit", "--models", "local"]
        env = {k: v for k, v in os.environ.items() if not k.endswith("API_KEY")}
        first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + store.kill_wait_s
        while ((len(server.requests) < 6 or not store.committed()) and time.monotonic() < deadline
               and first.poll() is None):
            time.sleep(0.05)
        os.kill(first.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        first.wait()
        before_kill = list(server.requests)
        assert 6 <= len(before_kill) < CONTRACTS, "the kill must land mid-partition"
        after_kill = store.view("after-kill")
        recorded = recorded_calls(after_kill)
        assert recorded, "calls answered before the kill were recorded"
        store.after_kill(after_kill)

        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=store.rerun_timeout_s)
        assert second.returncode == 0, second.stderr[-3000:]
        after = [contract_of(s) for s in server.requests[len(before_kill):]]

    # The durability window: a call answered before the last commit interval (plus slack for the commit
    # itself) was committed, so the re-run does not make it again; and however fast the calls came, no more
    # than MAX_UNCOMMITTED completed calls were ever awaiting their commit.
    answered = [s for s in before_kill if s.answered is not None]
    lost = [s for s in answered if contract_of(s) in after]
    assert all(s.answered > killed_at - COMMIT_SECONDS - SLACK_S for s in lost), (
        "a call answered outside the durability window was made again")
    assert len(lost) <= MAX_UNCOMMITTED
    in_flight = [s for s in before_kill if s.answered is None]
    assert len(in_flight) <= CONCURRENCY
    # The re-run calls exactly the contracts whose call was not recorded, each once; nothing recorded is lost.
    assert len(after) == CONTRACTS - len(recorded) and len(set(after)) == len(after)
    assert len(set(contract_of(s) for s in before_kill) & set(after)) == len(lost) + len(
        [s for s in in_flight if contract_of(s) in after])
    assert len(set(contract_of(s) for s in before_kill) | set(after)) == CONTRACTS
    after_rerun = store.view("after-rerun")
    assert recorded <= recorded_calls(after_rerun)
    events = Home.resolve(after_rerun).events.read(STREAM)
    assert sum(e.type == "extraction.recorded" for e in events) == CONTRACTS * CLAUSES
    assert sum(e.type == "model.call" for e in events) == CONTRACTS
    assert main(["--home", str(after_rerun), "verify"]) == 0
