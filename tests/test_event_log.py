import os
from pathlib import Path

import pytest

from lhl_platform.clause.extraction.events import ExtractionEvent, ExtractionFailed
from lhl_platform.domain.models import ModelSpec
from lhl_platform.events.log import EventLog
from lhl_platform.events.payloads import EventPayloadError, EventType, ModelRemoved
from lhl_platform.events.verify import verify_log


def _failure(i: int) -> ExtractionFailed:
    return ExtractionFailed(model="a", run=1, contract_id=f"c{i}", stage="call", reason=f"clause {i}")


def _fill(log: EventLog, stream: str = "extractions.m=a.r=1", n: int = 30, flush_every: int = 10) -> None:
    with log.writer(stream, flush_every=flush_every) as w:
        for i in range(n):
            w.append(ExtractionEvent.FAILED, f"c{i}", f"key-{i}", _failure(i))


def test_events_round_trip_in_order_with_hashes(tmp_path):
    log = EventLog(tmp_path / "events")
    _fill(log)
    events = log.read()
    assert [e.seq for e in events] == list(range(30))
    assert events[3].data() == _failure(3)
    assert all(e.code_version and e.payload_hash and e.chain_hash for e in events)
    assert verify_log(log).ok


def test_same_idempotency_key_twice_is_written_once(tmp_path):
    log = EventLog(tmp_path / "events")
    spec = ModelSpec(name="m", provider="offline", model_id="lexical")
    assert log.append("s", EventType.MODEL_REGISTERED, "m", "register:m", spec)
    assert not log.append("s", EventType.MODEL_REGISTERED, "m", "register:m", spec)
    _fill(log, "s2")
    _fill(log, "s2")  # a re-run of the same partition
    assert len(log.read("s")) == 1
    assert len(log.read("s2")) == 30
    assert verify_log(log).ok


def test_a_payload_of_the_wrong_class_is_refused_and_nothing_is_written(tmp_path):
    log = EventLog(tmp_path / "events")
    with pytest.raises(EventPayloadError, match="ModelSpec"):
        log.append("s", EventType.MODEL_REGISTERED, "m", "k", ModelRemoved(name="m"))
    assert log.read("s") == []


def test_a_stored_payload_is_validated_on_read(tmp_path):
    log = EventLog(tmp_path / "events")
    _fill(log, n=1)
    (event,) = log.read()
    tampered = event.model_copy(update={"payload": '{"model": "a"}'})
    with pytest.raises(ValueError, match="run"):
        tampered.data()


def test_events_are_readable_through_duckdb(tmp_path):
    import duckdb

    log = EventLog(tmp_path / "events")
    _fill(log)
    count = duckdb.connect().execute(f"select count(*) from read_parquet('{log.glob}')").fetchone()[0]
    assert count == 30


def _segments(log: EventLog) -> list[Path]:
    return sorted((log.root / "extractions.m=a.r=1").glob("*.parquet"))


def test_flipping_one_byte_of_a_segment_is_detected_and_named(tmp_path):
    log = EventLog(tmp_path / "events")
    _fill(log)
    victim = _segments(log)[1]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0x01
    victim.write_bytes(bytes(data))
    report = verify_log(log)
    assert not report.ok
    assert victim.name in report.problem


def test_dropping_a_segment_is_detected(tmp_path):
    log = EventLog(tmp_path / "events")
    _fill(log)
    _segments(log)[1].unlink()
    report = verify_log(log)
    assert not report.ok and "removed" in report.problem


def test_swapping_two_segments_is_detected(tmp_path):
    log = EventLog(tmp_path / "events")
    _fill(log)
    a, b = _segments(log)[:2]
    tmp = a.with_suffix(".swap")
    os.replace(a, tmp)
    os.replace(b, a)
    os.replace(tmp, b)
    report = verify_log(log)
    assert not report.ok and a.name in report.problem


def test_a_rewritten_event_with_a_fresh_file_hash_still_breaks_the_chain(tmp_path):
    import json

    import pyarrow.parquet as pq

    from lhl_platform.events.log import file_sha256, read_manifest

    log = EventLog(tmp_path / "events")
    _fill(log)
    stream_dir = log.root / "extractions.m=a.r=1"
    seg = _segments(log)[0]
    table = pq.read_table(seg).to_pylist()
    table[2]["payload"] = json.dumps({"i": 2, "text": "forged"})
    import pyarrow as pa

    pq.write_table(pa.Table.from_pylist(table, schema=pq.read_schema(seg)), seg)
    entries = read_manifest(stream_dir)
    entries[0].sha256 = file_sha256(seg)
    (stream_dir / "manifest.json").write_text(json.dumps({"segments": [e.__dict__ for e in entries]}))
    report = verify_log(log)
    assert not report.ok and "seq 2" in report.problem and "payload" in report.problem


def test_removed_stream_is_detected(tmp_path):
    import shutil

    log = EventLog(tmp_path / "events")
    _fill(log)
    _fill(log, "other")
    shutil.rmtree(log.root / "other")
    assert "other was removed" in verify_log(log).problem


@pytest.mark.parametrize("bad", ["../escape", "a/b", ""])
def test_stream_names_are_path_safe(tmp_path, bad):
    with pytest.raises(ValueError, match="stream"):
        EventLog(tmp_path).append(bad, "x.y", "s", "k", {})


def test_a_segment_written_but_never_committed_is_set_aside_on_reopen(tmp_path):
    log = EventLog(tmp_path / "events")
    _fill(log)
    stream_dir = log.root / "extractions.m=a.r=1"
    # a writer killed between writing its segment and committing it to the manifest
    (stream_dir / "0000000030.parquet").write_bytes(_segments(log)[0].read_bytes())
    assert not verify_log(log).ok
    _fill(log, n=35)  # the next writer of the stream commits only what it wrote
    assert verify_log(log).ok
    assert [e.seq for e in log.read("extractions.m=a.r=1")] == list(range(35))
    assert list(stream_dir.glob("*.uncommitted-*"))


def test_every_commit_records_the_stream_head_in_the_chained_checkpoint(tmp_path):
    from lhl_platform.events.checkpoint import Checkpoint
    from lhl_platform.events.log import stream_head

    log = EventLog(tmp_path / "events")
    _fill(log)  # three segments of ten
    _fill(log, "other", n=5)
    scan = Checkpoint(log.root).scan()
    assert scan.problem == ""
    assert [(a.stream, a.count) for a in scan.anchors] == [("extractions.m=a.r=1", 10), ("extractions.m=a.r=1", 20),
                                                           ("extractions.m=a.r=1", 30), ("other", 5)]
    assert scan.head.streams == {s: stream_head(log, s) for s in log.streams()}
    assert stream_head(log, "extractions.m=a.r=1") == (30, log.read("extractions.m=a.r=1")[-1].chain_hash)
    assert stream_head(log, "never-written") == (0, "0" * 64)


def test_a_plain_writer_keeps_what_was_appended_before_an_error_an_atomic_one_keeps_nothing(tmp_path):
    log = EventLog(tmp_path / "events")
    for stream, atomic, kept in (("plain", False, 3), ("atomic", True, 0)):
        with pytest.raises(RuntimeError, match="boom"), log.writer(stream, flush_every=2, atomic=atomic) as w:
            for i in range(3):
                w.append(ExtractionEvent.FAILED, f"c{i}", f"key-{i}", _failure(i))
            raise RuntimeError("boom")
        assert len(log.read(stream)) == kept
    assert verify_log(log).ok


def test_readers_take_only_committed_segments(tmp_path):
    log = EventLog(tmp_path / "events")
    _fill(log)
    stream_dir = log.root / "extractions.m=a.r=1"
    (stream_dir / "0000000030.parquet").write_bytes(_segments(log)[0].read_bytes())  # never committed
    assert [p.name for p in log.segments()] == ["0000000000.parquet", "0000000010.parquet", "0000000020.parquet"]
    assert len(log.read()) == 30


@pytest.mark.parametrize("damage", ["manifest", "streams", "segment"])
def test_a_damaged_file_is_one_line_naming_it_for_readers_and_writers(tmp_path, damage):
    from lhl_platform.events.integrity import DamagedLogError

    log = EventLog(tmp_path / "events")
    _fill(log)
    stream_dir = log.root / "extractions.m=a.r=1"
    if damage == "manifest":
        (stream_dir / "manifest.json").write_text('{"segments": [{"name": 3}]}')
        named = "events/extractions.m=a.r=1/manifest.json"
    elif damage == "streams":
        (log.root / "STREAMS").write_text("extractions.m=a.r=1\n../../etc\n")
        named = "events/STREAMS: line 2"
    else:
        seg = _segments(log)[2]
        seg.write_bytes(seg.read_bytes()[:100])
        named = "events/extractions.m=a.r=1/0000000020.parquet"
    for attempt in (log.read, log.segments, lambda: _fill(log, n=31)):
        with pytest.raises(DamagedLogError) as caught:
            attempt()
        assert named in str(caught.value) and "\n" not in str(caught.value) and "lhl verify" in str(caught.value)
    assert not verify_log(log).ok
