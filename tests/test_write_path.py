"""The audit's write path: group commit on a writer thread, a manifest that grows by appending, the durability
window, the request key computed once, and progress on every partition that takes a while."""

from __future__ import annotations

import asyncio
import io
import json
import time
from typing import Any

import pytest

from lhl_platform.clause.extraction import engine
from lhl_platform.clause.extraction.engine import MAX_UNCOMMITTED, extract_partition, extraction_stream
from lhl_platform.clause.extraction.events import ExtractionEvent, ExtractionFailed
from lhl_platform.clause.extraction.prompts import extraction_messages
from lhl_platform.clause.extraction.task import ExtractTask
from lhl_platform.domain.models import Contract, ModelSpec
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.events.checkpoint import Checkpoint
from lhl_platform.events.integrity import MANIFEST_LOG, DamagedLogError, read_manifest
from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.events.model import canonical_json, sha256_hex
from lhl_platform.events.verify import verify_log
from lhl_platform.progress import ProgressBar, Tick
from lhl_platform.providers.base import ModelRequest, ModelResponse, Usage


def _failure(i: int) -> ExtractionFailed:
    return ExtractionFailed(model="a", run=1, contract_id=f"c{i}", stage="call", reason=f"r{i}")


def _append(writer: StreamWriter, i: int) -> None:
    writer.append(ExtractionEvent.FAILED, f"c{i}", f"k{i}", _failure(i))


def _wait(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


# --- group commit and the append-only manifest ------------------------------------------------------------------


def test_a_background_writer_commits_in_groups_by_units_and_appends_to_the_manifest(tmp_path):
    log = EventLog(tmp_path / "events")
    stream_dir = log.root / "s"
    with log.writer("s", background=True, flush_units=3, flush_seconds=60) as writer:
        for i in range(7):
            _append(writer, i)
            writer.end_unit()
        _wait(lambda: writer.commits == 2)  # after units 3 and 6; the seventh waits for its group
        assert writer.pending_units == 1
        assert not (stream_dir / "manifest.json").exists()  # nothing rewritten: the log holds the commits
        assert len((stream_dir / MANIFEST_LOG).read_bytes().splitlines()) == 2
        # A reader in the meantime sees exactly what is committed.
        assert [e.seq for e in log.read("s")] == list(range(6))
        assert [(e.first_seq, e.count) for e in read_manifest(stream_dir)] == [(0, 3), (3, 3)]
    # Closing commits the rest and folds the log into manifest.json.
    assert not (stream_dir / MANIFEST_LOG).exists()
    assert [(e.first_seq, e.count) for e in read_manifest(stream_dir)] == [(0, 3), (3, 3), (6, 1)]
    assert [a.count for a in Checkpoint(log.root).scan().anchors] == [3, 6, 7]
    assert verify_log(log).ok


def test_a_background_writer_commits_within_its_interval_when_work_stops(tmp_path):
    log = EventLog(tmp_path / "events")
    with log.writer("s", background=True, flush_units=1000, flush_seconds=0.1) as writer:
        _append(writer, 0)
        writer.end_unit()
        started = time.monotonic()
        _wait(lambda: writer.commits == 1, timeout=5)
        assert time.monotonic() - started < 2
        assert len(log.read("s")) == 1


def test_each_commit_costs_the_same_the_manifest_is_never_rewritten(tmp_path):
    log = EventLog(tmp_path / "events")
    with log.writer("s") as writer:
        _append(writer, 0)
    manifest = log.root / "s" / "manifest.json"
    before = manifest.read_bytes()
    with log.writer("s", flush_every=1) as writer:
        for i in range(1, 40):
            _append(writer, i)
            assert manifest.read_bytes() == before  # each commit appended a line to manifest.log instead
        assert len((log.root / "s" / MANIFEST_LOG).read_bytes().splitlines()) == 39
    assert len(read_manifest(log.root / "s")) == 40 and verify_log(log).ok


def test_a_writer_killed_before_folding_its_log_leaves_a_readable_stream(tmp_path):
    log = EventLog(tmp_path / "events")
    with log.writer("s", flush_every=2) as writer:
        for i in range(6):
            _append(writer, i)
    stream_dir = log.root / "s"
    # What a kill -9 leaves: committed segments listed only in manifest.log, plus a line torn mid-write and
    # the segment it would have committed.
    entries = read_manifest(stream_dir)
    (stream_dir / "manifest.json").write_text(json.dumps({"anchored": True, "segments": [entries[0].__dict__]}))
    lines = [json.dumps(e.__dict__, separators=(",", ":")) for e in entries[1:]]
    (stream_dir / MANIFEST_LOG).write_text("\n".join(lines) + "\n" + lines[-1][:30])
    assert [e.seq for e in log.read("s")] == list(range(6))  # readers take the log's whole lines
    (stream_dir / "0000000006.parquet").write_bytes(b"never committed")
    assert not verify_log(log).ok  # a segment no manifest lists is named ...
    with log.writer("s") as writer:  # ... and the next writer cuts the torn line, folds the log, sets it aside
        _append(writer, 6)
    assert not (stream_dir / MANIFEST_LOG).exists()
    assert [e.seq for e in log.read("s")] == list(range(7))
    assert list(stream_dir.glob("0000000006.parquet.uncommitted-*"))
    assert verify_log(log).ok


def test_a_garbled_manifest_log_line_is_damage_named_for_readers_writers_and_verify(tmp_path):
    log = EventLog(tmp_path / "events")
    with log.writer("s", flush_every=2) as writer:
        for i in range(4):
            _append(writer, i)
    stream_dir = log.root / "s"
    (stream_dir / MANIFEST_LOG).write_text('{"name": "0000000004.parquet", "sha256": 7}\n')
    for attempt in (lambda: log.read("s"), lambda: _fill_one(log)):
        with pytest.raises(DamagedLogError, match="events/s/manifest.log: line 1"):
            attempt()
    assert "manifest.log" in verify_log(log).problem


def _fill_one(log: EventLog) -> None:
    with log.writer("s") as writer:
        _append(writer, 99)


def test_a_failing_background_commit_reaches_the_caller(tmp_path, monkeypatch):
    log = EventLog(tmp_path / "events")

    def broken(self: StreamWriter) -> None:
        if self._buffer:
            raise OSError("disk full")

    monkeypatch.setattr(StreamWriter, "_commit", broken)
    with pytest.raises(RuntimeError, match="disk full"), log.writer("s", background=True, flush_units=1) as writer:
        _append(writer, 0)
        writer.end_unit()
        _wait(lambda: writer._error is not None)
        _append(writer, 1)


def test_room_holds_new_work_while_too_many_units_await_their_commit(tmp_path, monkeypatch):
    log = EventLog(tmp_path / "events")
    real = StreamWriter._commit

    def slow(self: StreamWriter) -> None:
        time.sleep(0.2)
        real(self)

    monkeypatch.setattr(StreamWriter, "_commit", slow)

    async def work(writer: StreamWriter) -> list[int]:
        seen = []
        for i in range(12):
            await writer.room(4)
            seen.append(writer.pending_units)
            _append(writer, i)
            writer.end_unit()
        return seen

    with log.writer("s", background=True, flush_units=2, flush_seconds=60) as writer:
        seen = asyncio.run(work(writer))
    assert max(seen) <= 4
    assert len(log.read("s")) == 12 and verify_log(log).ok


@pytest.mark.parametrize("background", [True, False])
def test_a_unit_that_writes_no_event_is_settled_at_once_so_room_never_waits_for_it(tmp_path, background):
    log = EventLog(tmp_path / "events")

    async def work(writer: StreamWriter) -> None:
        for _ in range(50):  # units that recorded nothing (every item already answered, say)
            writer.end_unit()
            await asyncio.wait_for(writer.room(4), timeout=10)

    with log.writer("s", background=background, flush_units=1000, flush_seconds=60) as writer:
        asyncio.run(work(writer))
        _wait(lambda: writer.pending_units == 0)
        _append(writer, 0)
        writer.end_unit()
        assert writer.pending_units == 1  # a unit with a buffered event still waits for its commit
    assert writer.commits == 1 and len(log.read("s")) == 1


# --- the durability window of an audit partition ------------------------------------------------------------------


class InstantModel:
    """A paid-looking model (provider openai) that answers at once: the partition runs as fast as it can."""

    provider = "openai"
    model_id = "instant"

    def request_params(self) -> dict[str, Any]:
        return {"temperature": 0.0}

    async def complete(self, request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(0)
        answer = {"clauses": [{"clause_type": c, "present": False, "quotes": []} for c in CLAUSE_TYPES]}
        return ModelResponse(content=answer, usage=Usage(input_tokens=10, output_tokens=5))


def _contracts(n: int) -> list[Contract]:
    import hashlib

    return [Contract(contract_id=f"c{i:03d}", filename=f"c{i}.txt", text=f"AGREEMENT {i}",
                     sha256=hashlib.sha256(f"AGREEMENT {i}".encode()).hexdigest()) for i in range(n)]


def test_a_fast_partition_never_has_more_than_the_window_of_completed_calls_uncommitted(tmp_path, monkeypatch):
    """However fast calls complete and however slow the disk, no new call starts while MAX_UNCOMMITTED
    completed ones await their commit: a kill -9 costs at most that many completed calls."""
    real_commit, real_end = StreamWriter._commit, StreamWriter.end_unit
    peak = 0

    def slow_commit(self: StreamWriter) -> None:
        time.sleep(0.05)
        real_commit(self)

    def counting_end(self: StreamWriter) -> None:
        nonlocal peak
        real_end(self)
        peak = max(peak, self.pending_units)

    monkeypatch.setattr(StreamWriter, "_commit", slow_commit)
    monkeypatch.setattr(StreamWriter, "end_unit", counting_end)
    log = EventLog(tmp_path / "events")
    spec = ModelSpec(name="fast", provider="openai", model_id="instant")
    summary = asyncio.run(extract_partition(log, spec, 1, "corpus", _contracts(300), InstantModel(), concurrency=16))
    assert summary.calls == 300 and summary.instances == 300 * 41
    assert peak <= MAX_UNCOMMITTED + 16  # those admitted before the bound was reached may finish
    segments = read_manifest(log.root / extraction_stream("fast", 1))
    assert len(segments) >= 300 // engine.COMMIT_CONTRACTS // 2  # group commits, not one segment per contract
    assert verify_log(log).ok


# --- the request key -----------------------------------------------------------------------------------------------


def test_the_request_key_is_computed_once_and_is_the_hash_of_the_requests_canonical_json(monkeypatch):
    import lhl_platform.providers.base as base

    text = "AGREEMENT é \u2028 \"quoted\" \\ tab\t" * 50
    request = ModelRequest(provider="openai", model_id="m", prompt_version="extract-v1", run=2,
                           params={"temperature": 0.0, "seed": 7},
                           messages=extraction_messages(text, CLAUSE_TYPES),
                           task=ExtractTask(contract_id="c1", contract_text=text, clause_types=CLAUSE_TYPES))
    hashed = []
    real = base.sha256_hex
    monkeypatch.setattr(base, "sha256_hex", lambda s: hashed.append(s) or real(s))
    key = request.key()
    assert request.key() == key and len(hashed) == 1
    assert key == real(canonical_json({"provider": "openai", "model_id": "m", "params": {"temperature": 0.0, "seed": 7},
                                       "prompt_version": "extract-v1", "run": 2, "subject": "c1",
                                       "messages": [m.model_dump() for m in request.messages]}))
    assert request.model_copy(update={"run": 3}).key() != key  # a changed copy is keyed afresh
    assert sha256_hex  # the events' own hash function is the one used


# --- progress on every partition that takes a while -----------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_progress_is_silent_for_a_quick_partition_and_a_line_every_few_seconds_otherwise(monkeypatch):
    clock = Clock()
    monkeypatch.setattr("lhl_platform.progress.time.monotonic", clock)
    quick = io.StringIO()
    bar = ProgressBar("lexical run 1 extraction:", out=quick)
    for done in range(1, 11):
        clock.now += 0.1
        bar(Tick(done, 10, done, 100 * done, 10 * done))
    assert quick.getvalue() == ""  # one second in all: nothing to show

    slow = io.StringIO()
    bar = ProgressBar("lexical run 1 extraction:", out=slow)
    for done in range(1, 501):
        clock.now += 0.16  # 80 seconds for 500 contracts, as lexical over CUAD
        bar(Tick(done, 500, done, 1000 * done, 100 * done))
    lines = slow.getvalue().splitlines()
    assert 14 <= len(lines) <= 18  # about one every five seconds, and the last one
    assert lines[0].startswith("lexical run 1 extraction: ") and "ETA" in lines[0]
    assert lines[-1].startswith("lexical run 1 extraction: 500/500") and "done in 80s" in lines[-1]
    clock.now += 6
    bar.status("waiting for batch_1: in_progress")  # what a batch partition waits for, on the same terms
    assert slow.getvalue().splitlines()[-1] == "lexical run 1 extraction: waiting for batch_1: in_progress"


def test_an_offline_audit_shows_progress_on_stderr(tmp_path, capfd, monkeypatch):
    """The assets give every partition a progress bar, offline ones included."""
    from lhl_platform.corpus.demo import DEMO_DIR
    from orchestration.cli import main

    monkeypatch.setattr(ProgressBar.__init__, "__defaults__", (None, None, 24, 0.0, 0.0))
    home = str(tmp_path / "home")
    assert main(["--home", home, "ingest", "cuad", str(DEMO_DIR)]) == 0
    assert main(["--home", home, "models", "add", "lexical", "--provider", "offline", "--model-id", "lexical"]) == 0
    capfd.readouterr()
    assert main(["--home", home, "audit", "--models", "lexical", "--contracts", "3"]) == 0
    err = capfd.readouterr().err
    assert "lexical run 1 extraction: 3/3" in err


def test_the_writer_thread_stamps_events_it_builds_and_they_verify(tmp_path):
    log = EventLog(tmp_path / "events")
    with log.writer("s", background=True, flush_units=5) as writer:
        for i in range(20):
            _append(writer, i)
            writer.end_unit()
    events = log.read("s")
    assert [e.seq for e in events] == list(range(20)) and len({e.event_id for e in events}) == 20
    assert all(e.expected_chain(e.prev_hash) == e.chain_hash for e in events)
    assert all(sha256_hex(e.payload) == e.payload_hash for e in events)
    assert events[3].data() == _failure(3)
    assert verify_log(log).ok


@pytest.mark.parametrize("quotes", [(), ("plain",), ("é \u2028 \"q\" \\ \n\t\x00", "two 😀")])
def test_an_instance_built_on_the_hot_path_is_stored_as_the_canonical_json_of_the_validated_record(quotes):
    from lhl_platform.clause.extraction.events import ExtractionRecorded
    from lhl_platform.events.encoding import encode_payload

    values = {"clause_type": "Governing Law", "model": "m-1.x", "run": 3, "contract_id": "Acme \"Co\" é.pdf",
              "present": bool(quotes), "quotes": quotes, "corpus_id": "53da595597bee727", "request_key": "k" * 64}
    validated = ExtractionRecorded(**values)
    fast = ExtractionRecorded.model_construct(**values)
    assert fast == validated and fast.model_dump() == validated.model_dump()
    assert encode_payload(fast).decode() == canonical_json(validated.model_dump(mode="json"))
