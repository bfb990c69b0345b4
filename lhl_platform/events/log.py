"""Append-only event log stored as immutable Parquet segments (ARCHITECTURE.md, "Events").

Layout under `<home>/events/`:
- `STREAMS`: one line per stream ever created (append-only), so a deleted stream is noticed.
- `<stream>/<seq>.parquet`: segments; events inside are numbered and hash-chained per stream.
- `<stream>/manifest.json`: the ordered segment list with each file's SHA-256.

Each writer holds an exclusive lock on its stream, so Dagster can run partitions in parallel
processes (one stream per partition) while DuckDB only ever reads the segments.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel

from lhl_platform import __version__
from lhl_platform.events.model import EVENT_COLUMNS, GENESIS, Event, canonical_json, sha256_hex
from lhl_platform.events.payloads import EventType, check_payload

STREAM_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:=-]{0,200}$")
SCHEMA = pa.schema([(name, pa.int64() if name == "seq" else pa.string()) for name in EVENT_COLUMNS])


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass
class SegmentEntry:
    name: str
    sha256: str
    first_seq: int
    count: int
    last_chain: str


def read_manifest(stream_dir: Path) -> list[SegmentEntry]:
    path = stream_dir / "manifest.json"
    if not path.exists():
        return []
    return [SegmentEntry(**entry) for entry in json.loads(path.read_text())["segments"]]


def _write_manifest(stream_dir: Path, entries: list[SegmentEntry]) -> None:
    tmp = stream_dir / "manifest.json.tmp"
    tmp.write_text(json.dumps({"segments": [e.__dict__ for e in entries]}, indent=1))
    os.replace(tmp, stream_dir / "manifest.json")


@dataclass
class StreamWriter:
    """Buffers events for one stream and writes them as segments; use via `EventLog.writer`."""

    root: Path
    stream: str
    flush_every: int = 5000
    flush_seconds: float | None = None  # also flush when the oldest buffered event is this old
    _entries: list[SegmentEntry] = field(default_factory=list)
    _keys: set[str] = field(default_factory=set)
    _buffer: list[Event] = field(default_factory=list)
    _next_seq: int = 0
    _prev_hash: str = GENESIS
    _buffered_since: float = 0.0
    written: int = 0
    skipped: int = 0

    @property
    def dir(self) -> Path:
        return self.root / self.stream

    def _open(self) -> None:
        self._entries = read_manifest(self.dir)
        # The manifest is the commit point: a segment file it does not list was written by a writer that
        # died before committing it (kill -9). Its events never counted; keep the file aside for forensics.
        committed = {e.name for e in self._entries}
        for orphan in self.dir.glob("*.parquet"):
            if orphan.name not in committed:
                os.replace(orphan, self.dir / f"{orphan.name}.uncommitted-{time.time_ns()}")
        if self._entries:
            last = self._entries[-1]
            self._next_seq = last.first_seq + last.count
            self._prev_hash = last.last_chain
            self._keys = EventLog(self.root).keys(self.stream)

    def has(self, idempotency_key: str) -> bool:
        return idempotency_key in self._keys

    def append(self, type: EventType, subject: str, idempotency_key: str, payload: BaseModel) -> bool:
        """Append one event; returns False (and writes nothing) when the key is already recorded."""
        if idempotency_key in self._keys:
            self.skipped += 1
            return False
        check_payload(type, payload)
        body = canonical_json(payload.model_dump(mode="json"))
        payload_hash = sha256_hex(body)
        event_id = uuid.uuid4().hex
        stamp = datetime.now(UTC).isoformat(timespec="microseconds")
        seq = self._next_seq
        chain = Event.chain(self._prev_hash, event_id=event_id, stream=self.stream, seq=seq, type=type,
                            subject=subject, idempotency_key=idempotency_key, payload_hash=payload_hash,
                            time=stamp, code_version=__version__)
        self._buffer.append(Event.model_construct(
            event_id=event_id, stream=self.stream, seq=seq, type=type, subject=subject,
            idempotency_key=idempotency_key, payload=body, payload_hash=payload_hash,
            prev_hash=self._prev_hash, chain_hash=chain, time=stamp, code_version=__version__))
        self._keys.add(idempotency_key)
        self._prev_hash = chain
        self._next_seq += 1
        self.written += 1
        if len(self._buffer) == 1:
            self._buffered_since = time.monotonic()
        if len(self._buffer) >= self.flush_every or (
                self.flush_seconds is not None and time.monotonic() - self._buffered_since >= self.flush_seconds):
            self.flush()
        return True

    def flush(self) -> None:
        """Write buffered events as one new immutable segment and record it in the manifest."""
        if not self._buffer:
            return
        first = self._buffer[0].seq
        columns = {name: [getattr(e, name) for e in self._buffer] for name in EVENT_COLUMNS}
        table = pa.Table.from_pydict(columns, schema=SCHEMA)
        name = f"{first:010d}.parquet"
        tmp = self.dir / f".{name}.tmp"
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, self.dir / name)
        self._entries.append(SegmentEntry(name=name, sha256=file_sha256(self.dir / name), first_seq=first,
                                          count=len(self._buffer), last_chain=self._buffer[-1].chain_hash))
        _write_manifest(self.dir, self._entries)
        self._buffer.clear()


class EventLog:
    """The home's event log: many streams of hash-chained events, read back through DuckDB."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @property
    def glob(self) -> str:
        return str(self.root / "*" / "*.parquet")

    def streams(self) -> list[str]:
        index = self.root / "STREAMS"
        if not index.exists():
            return []
        return list(dict.fromkeys(line for line in index.read_text().splitlines() if line))

    def keys(self, stream: str) -> set[str]:
        """Idempotency keys already recorded in a stream (what a re-run would skip)."""
        found: set[str] = set()
        for entry in read_manifest(self.root / stream):
            table = pq.read_table(self.root / stream / entry.name, columns=["idempotency_key"])
            found.update(table.column(0).to_pylist())
        return found

    def has_events(self) -> bool:
        return any(self.root.glob("*/*.parquet"))

    @contextmanager
    def writer(self, stream: str, flush_every: int = 5000,
               flush_seconds: float | None = None) -> Iterator[StreamWriter]:
        if not STREAM_PATTERN.fullmatch(stream):
            raise ValueError(f"invalid event stream name {stream!r}")
        stream_dir = self.root / stream
        stream_dir.mkdir(parents=True, exist_ok=True)
        with (stream_dir / ".lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if stream not in self.streams():
                with (self.root / "STREAMS").open("a") as index:
                    index.write(stream + "\n")
            writer = StreamWriter(root=self.root, stream=stream, flush_every=flush_every, flush_seconds=flush_seconds)
            writer._open()
            try:
                yield writer
            finally:
                # Flush even on error: events already appended describe work that really happened.
                writer.flush()

    def append(self, stream: str, type: EventType, subject: str, idempotency_key: str, payload: BaseModel) -> bool:
        with self.writer(stream) as w:
            return w.append(type, subject, idempotency_key, payload)

    def read(self, stream: str | None = None) -> list[Event]:
        """All events (or one stream's) in stream order; for small reads and verification."""
        out: list[Event] = []
        for name in [stream] if stream else self.streams():
            for entry in read_manifest(self.root / name):
                out.extend(_events_of(self.root / name / entry.name))
        return out



def _events_of(path: Path) -> list[Event]:
    table = pq.read_table(path)
    rows = table.to_pylist()
    return [Event.model_construct(**row) for row in rows]
