"""Append-only event log stored as immutable Parquet segments (docs/architecture.md, section 3).

Layout under `<home>/events/`:
- `STREAMS`: one line per stream ever created (append-only), so a deleted stream is noticed.
- `<stream>/<seq>.parquet`: segments; events inside are numbered and hash-chained per stream.
- `<stream>/manifest.json`: the ordered segment list with each file's SHA-256 (the commit point).
- `CHECKPOINT`: every committed stream head, itself hash-chained (`checkpoint.py`), so a stream cut
  short or put back to an older copy is noticed.

Each writer holds an exclusive lock on its stream, so Dagster can run partitions in parallel
processes (one stream per partition) while DuckDB only ever reads the segments. Every read goes
through the manifests and checks the segments' hashes first (`integrity.py`).
"""

from __future__ import annotations

import fcntl
import os
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
from lhl_platform.events.checkpoint import Checkpoint
from lhl_platform.events.integrity import (
    INGEST_STREAM,
    STREAM_PATTERN,
    STREAMS_INDEX,
    DamagedLogError,
    HashCache,
    SegmentEntry,
    check_corpora,
    check_stream,
    file_sha256,
    parse_manifest,
    read_manifest,
    read_streams,
    rel,
    stream_head_of,
    write_manifest,
)
from lhl_platform.events.model import EVENT_COLUMNS, GENESIS, Event, canonical_json, sha256_hex
from lhl_platform.events.payloads import CorpusIngested, EventType, check_payload

__all__ = ["SCHEMA", "STREAM_PATTERN", "DamagedLogError", "EventLog", "SegmentEntry", "StreamWriter",
           "checked_segments", "file_sha256", "read_manifest", "stream_head"]

SCHEMA = pa.schema([(name, pa.int64() if name == "seq" else pa.string()) for name in EVENT_COLUMNS])


@dataclass
class StreamWriter:
    """Buffers events for one stream and writes them as segments; use via `EventLog.writer`.

    An `atomic` writer never flushes on its own: everything appended is committed as one segment when
    the writer closes normally, and nothing at all when it closes with an error."""

    root: Path
    stream: str
    flush_every: int = 5000
    flush_seconds: float | None = None  # also flush when the oldest buffered event is this old
    atomic: bool = False
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
        # A writer extends only a stream that is intact as far as a reader can tell: its manifest
        # readable, its segments matching their hashes, and not behind its checkpointed head.
        anchors = Checkpoint(self.root).anchors({self.stream}).get(self.stream, [])
        cache = HashCache(self.root)
        self._entries = check_stream(self.root, self.stream, anchors, cache)
        cache.save()
        # The manifest is the commit point: a segment file it does not list was written by a writer that
        # died before committing it (kill -9). Its events never counted; keep the file aside for forensics.
        committed = {e.name for e in self._entries}
        for orphan in self.dir.glob("*.parquet"):
            if orphan.name not in committed:
                os.replace(orphan, self.dir / f"{orphan.name}.uncommitted-{time.time_ns()}")
        if self._entries:
            self._next_seq, self._prev_hash = stream_head_of(self._entries)
            self._keys = _keys_of(self.root, [self.dir / e.name for e in self._entries])

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
        if not self.atomic and (len(self._buffer) >= self.flush_every or (
                self.flush_seconds is not None and time.monotonic() - self._buffered_since >= self.flush_seconds)):
            self.flush()
        return True

    def flush(self) -> None:
        """Write buffered events as one new immutable segment, record it in the manifest (the commit),
        then record the stream's new head in the checkpoint."""
        if not self._buffer:
            return
        first = self._buffer[0].seq
        columns = {name: [getattr(e, name) for e in self._buffer] for name in EVENT_COLUMNS}
        table = pa.Table.from_pydict(columns, schema=SCHEMA)
        name = f"{first:010d}.parquet"
        tmp = self.dir / f".{name}.tmp"
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, self.dir / name)
        entry = SegmentEntry(name=name, sha256=file_sha256(self.dir / name), first_seq=first,
                             count=len(self._buffer), last_chain=self._buffer[-1].chain_hash)
        self._entries.append(entry)
        write_manifest(self.dir, self._entries)
        self._buffer.clear()
        Checkpoint(self.root).append(self.stream, entry.end, entry.last_chain)

    def discard(self) -> None:
        """Drop what is buffered (an atomic writer closed by an error): none of it was committed."""
        self.written -= len(self._buffer)
        self._buffer.clear()


class EventLog:
    """The home's event log: many streams of hash-chained events, read back through DuckDB."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @property
    def glob(self) -> str:
        return str(self.root / "*" / "*.parquet")

    @property
    def checkpoint(self) -> Checkpoint:
        return Checkpoint(self.root)

    def streams(self) -> list[str]:
        """Every stream ever created; raises DamagedLogError when the index is garbled."""
        return read_streams(self.root)

    def keys(self, stream: str) -> set[str]:
        """Idempotency keys already recorded in a stream (what a re-run would skip)."""
        return _keys_of(self.root, checked_segments(self, [stream]))

    def has_events(self) -> bool:
        return any(self.root.glob("*/*.parquet"))

    def segments(self, streams: list[str] | None = None, corpora_dir: Path | None = None) -> list[Path]:
        """The committed segments of every stream (or the given ones), each checked before it is read;
        given `corpora_dir`, the stored corpus files are checked as well (see `checked_segments`)."""
        return checked_segments(self, streams, corpora_dir)

    @contextmanager
    def writer(self, stream: str, flush_every: int = 5000, flush_seconds: float | None = None,
               atomic: bool = False) -> Iterator[StreamWriter]:
        if not STREAM_PATTERN.fullmatch(stream):
            raise ValueError(f"invalid event stream name {stream!r}")
        stream_dir = self.root / stream
        stream_dir.mkdir(parents=True, exist_ok=True)
        with (stream_dir / ".lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if stream not in self.streams():
                with (self.root / STREAMS_INDEX).open("a") as index:
                    index.write(stream + "\n")
            self.checkpoint.touch()
            writer = StreamWriter(root=self.root, stream=stream, flush_every=flush_every,
                                  flush_seconds=flush_seconds, atomic=atomic)
            writer._open()
            try:
                yield writer
            except BaseException:
                # Events already appended describe work that really happened, so a plain writer keeps
                # them; an atomic writer commits all or nothing.
                if atomic:
                    writer.discard()
                else:
                    writer.flush()
                raise
            writer.flush()

    def append(self, stream: str, type: EventType, subject: str, idempotency_key: str, payload: BaseModel) -> bool:
        with self.writer(stream) as w:
            return w.append(type, subject, idempotency_key, payload)

    def read(self, stream: str | None = None) -> list[Event]:
        """All events (or one stream's) in stream order; for small reads and verification."""
        out: list[Event] = []
        for path in checked_segments(self, None if stream is None else [stream]):
            out.extend(_events_of(self.root, path))
        return out


def checked_segments(log: EventLog, streams: list[str] | None = None,
                     corpora_dir: Path | None = None) -> list[Path]:
    """The committed segment files of every stream in `STREAMS` (or of the given streams), in order.

    Each is checked first: the index and manifests readable, every segment present with the SHA-256
    its manifest recorded (hashes of unchanged files come from a cache), no stream behind its head in
    the checkpoint. Given `corpora_dir`, the stored corpus files are checked too, against the hashes
    their ingest events recorded. The first thing that does not hold raises DamagedLogError (one line)."""
    listed = log.streams()
    names = listed if streams is None else list(dict.fromkeys(streams))
    wanted = names if corpora_dir is None else [*names, INGEST_STREAM]
    anchors = log.checkpoint.anchors(None if streams is None else set(wanted))
    cache = HashCache(log.root)
    known = set(listed)
    checked: dict[str, list[Path]] = {}
    for name in dict.fromkeys(wanted):
        if not STREAM_PATTERN.fullmatch(name):
            raise ValueError(f"invalid event stream name {name!r}")
        entries = check_stream(log.root, name, anchors.get(name, []), cache, listed=name in known)
        checked[name] = [log.root / name / e.name for e in entries]
    if corpora_dir is not None:
        recorded: dict[str, dict[str, str]] = {}  # corpus id -> its latest ingest's file hashes
        for path in checked[INGEST_STREAM]:
            for event in _events_of(log.root, path):
                if event.type == EventType.CORPUS_INGESTED:
                    ingest = event.data_as(CorpusIngested)
                    recorded[ingest.corpus_id] = dict(ingest.files)
        check_corpora(log.root, corpora_dir, recorded, cache)
    cache.save()
    return [path for name in names for path in checked[name]]


def stream_head(log: EventLog, stream: str) -> tuple[int, str]:
    """A stream's committed head: its event count and the chain hash of its last event ((0, 64 zeros)
    when it has none). This is what the checkpoint records; `lhl verify` proves it from the events."""
    if not STREAM_PATTERN.fullmatch(stream):
        raise ValueError(f"invalid event stream name {stream!r}")
    entries, _ = parse_manifest(log.root / stream, log.root)
    return stream_head_of(entries)


def _read_segment(root: Path, path: Path, columns: list[str] | None = None) -> pa.Table:
    try:
        return pq.read_table(path, columns=columns)
    except (pa.ArrowException, OSError) as exc:
        raise DamagedLogError(rel(root, path), f"unreadable segment ({exc})") from None


def _keys_of(root: Path, paths: list[Path]) -> set[str]:
    found: set[str] = set()
    for path in paths:
        found.update(_read_segment(root, path, ["idempotency_key"]).column(0).to_pylist())
    return found


def _events_of(root: Path, path: Path) -> list[Event]:
    rows = _read_segment(root, path).to_pylist()
    return [Event.model_construct(**row) for row in rows]
