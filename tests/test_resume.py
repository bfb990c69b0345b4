"""kill -9 in the middle of a partition, then re-run: no call completed before the durability window is made
again, and the calls that are repeated are at most the window's (plus those in flight)."""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time

from lhl_platform.clause.extraction.engine import COMMIT_SECONDS, MAX_UNCOMMITTED, extraction_stream
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.events.payloads import ModelCall
from lhl_platform.home import Home
from orchestration.cli import main
from tests.fakes import Reply, ScriptedServer

ANSWER = {"clauses": [{"clause_type": c, "present": False, "quotes": []} for c in CLAUSE_TYPES]}
CONCURRENCY = 2
# What a commit itself may take on a loaded machine, on top of the commit interval.
SLACK_S = 0.75


def _completion() -> Reply:
    return Reply(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "local",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": json.dumps(ANSWER)}}],
                       "usage": {"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200}}, delay=0.25)


def _contract_of(seen) -> str:
    return hashlib.sha256(seen.body["messages"][-1]["content"].encode()).hexdigest()


def test_kill_minus_nine_mid_partition_then_rerun_repeats_only_the_durability_window(tmp_path):
    home = Home.resolve(tmp_path / "home")
    with ScriptedServer() as server:
        server.script(default=_completion())
        assert main(["--home", str(home.root), "ingest", "cuad", str(DEMO_DIR)]) == 0
        assert main(["--home", str(home.root), "models", "add", "local", "--provider", "openai", "--model-id",
                     "qwen3-32b", "--base-url", server.url + "/v1", "--params",
                     json.dumps({"concurrency": CONCURRENCY})]) == 0
        command = [sys.executable, "-m", "orchestration.cli", "--home", str(home.root), "audit", "--models", "local"]
        env = {k: v for k, v in os.environ.items() if not k.endswith("API_KEY")}
        first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while len(server.requests) < 6 and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.05)
        os.kill(first.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        first.wait()
        before_kill = list(server.requests)
        assert 6 <= len(before_kill) < 12, "the kill must land mid-partition"
        recorded = {e.data_as(ModelCall).request_key for e in home.events.read(extraction_stream("local", 1))
                    if e.type == "model.call"}
        assert recorded, "calls answered before the kill were recorded"

        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
        assert second.returncode == 0, second.stderr
        after = [_contract_of(s) for s in server.requests[len(before_kill):]]

    # The durability window: a call answered before the last commit interval (plus slack for the commit
    # itself) was committed, so the re-run does not make it again; and however fast the calls came, no more
    # than MAX_UNCOMMITTED completed calls were ever awaiting their commit.
    answered = [s for s in before_kill if s.answered is not None]
    lost = [s for s in answered if _contract_of(s) in after]
    assert all(s.answered > killed_at - COMMIT_SECONDS - SLACK_S for s in lost), (
        "a call answered outside the durability window was made again")
    assert len(lost) <= MAX_UNCOMMITTED
    in_flight = [s for s in before_kill if s.answered is None]
    assert len(in_flight) <= CONCURRENCY
    # The re-run calls exactly the contracts whose call was not recorded, each once.
    assert len(after) == 12 - len(recorded) and len(set(after)) == len(after)
    assert len(set(_contract_of(s) for s in before_kill) & set(after)) == len(lost) + len(
        [s for s in in_flight if _contract_of(s) in after])
    assert len(set(_contract_of(s) for s in before_kill) | set(after)) == 12
    events = home.events.read(extraction_stream("local", 1))
    assert sum(e.type == "extraction.recorded" for e in events) == 12 * 41
    assert main(["--home", str(home.root), "verify"]) == 0
    assert sum(e.type == "model.call" for e in events) == 12
