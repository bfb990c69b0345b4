"""Recompute the event log's hashes and report the first thing that does not match."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from lhl_platform.events.log import EventLog, file_sha256, read_manifest
from lhl_platform.events.model import GENESIS, Event, sha256_hex


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    streams: int
    segments: int
    events: int
    problem: str = ""


def verify_log(log: EventLog) -> VerifyReport:
    streams = log.streams()
    listed = set(streams)
    segments = events = 0
    if log.root.exists():
        for child in sorted(p for p in log.root.iterdir() if p.is_dir()):
            if child.name not in listed:
                return VerifyReport(False, len(streams), segments, events,
                                    f"stream {child.name} is not in the STREAMS index")
    for stream in streams:
        stream_dir = log.root / stream
        if not stream_dir.is_dir():
            return VerifyReport(False, len(streams), segments, events, f"stream {stream} was removed")
        entries = read_manifest(stream_dir)
        recorded = {e.name for e in entries}
        for path in sorted(stream_dir.glob("*.parquet")):
            if path.name not in recorded:
                return VerifyReport(False, len(streams), segments, events,
                                    f"{_rel(log, path)}: segment not in the stream's manifest")
        prev, expected_seq = GENESIS, 0
        for entry in entries:
            path = stream_dir / entry.name
            where = _rel(log, path)
            if not path.exists():
                return VerifyReport(False, len(streams), segments, events, f"{where}: segment was removed")
            if file_sha256(path) != entry.sha256:
                return VerifyReport(False, len(streams), segments, events,
                                    f"{where}: bytes differ from the recorded SHA-256")
            try:
                rows = pq.read_table(path).to_pylist()
            except Exception as exc:  # a corrupted file is a finding, not a crash
                return VerifyReport(False, len(streams), segments, events, f"{where}: unreadable ({exc})")
            if entry.first_seq != expected_seq:
                return VerifyReport(False, len(streams), segments, events,
                                    f"{where}: starts at seq {entry.first_seq}, expected {expected_seq} "
                                    "(segment removed or reordered)")
            for row in rows:
                event = Event.model_construct(**row)
                bad = _check_event(event, prev, expected_seq, stream)
                if bad:
                    return VerifyReport(False, len(streams), segments, events,
                                        f"{where}: event seq {event.seq} ({event.event_id}): {bad}")
                prev, expected_seq = event.chain_hash, expected_seq + 1
                events += 1
            if prev != entry.last_chain:
                return VerifyReport(False, len(streams), segments, events,
                                    f"{where}: last chain hash differs from the manifest")
            segments += 1
    return VerifyReport(True, len(streams), segments, events)


def _check_event(event: Event, prev: str, seq: int, stream: str) -> str:
    if event.stream != stream or event.seq != seq:
        return f"out of order (expected {stream} seq {seq})"
    if sha256_hex(event.payload) != event.payload_hash:
        return "payload does not match its hash"
    if event.prev_hash != prev:
        return "previous-hash link broken"
    if event.expected_chain(prev) != event.chain_hash:
        return "chain hash does not match the event's contents"
    return ""


def _rel(log: EventLog, path: Path) -> str:
    return str(path.relative_to(log.root.parent)) if log.root.parent in path.parents else str(path)
