import os
from pathlib import Path

import pytest

from lhl_platform.domain.models import ModelSpec
from lhl_platform.events import EventLog, verify_log
from lhl_platform.events.payloads import EventPayloadError, EventType, ExtractionFailed, ModelRemoved


def _failure(i: int) -> ExtractionFailed:
    return ExtractionFailed(model="a", run=1, contract_id=f"c{i}", stage="call", reason=f"clause {i}")


def _fill(log: EventLog, stream: str = "extractions.m=a.r=1", n: int = 30, flush_every: int = 10) -> None:
    with log.writer(stream, flush_every=flush_every) as w:
        for i in range(n):
            w.append(EventType.EXTRACTION_FAILED, f"c{i}", f"key-{i}", _failure(i))


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
