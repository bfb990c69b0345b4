"""Append-only event log stored as immutable Parquet segments (docs/architecture.md, section 3).

Layout under `<home>/events/`:
- `STREAMS`: one line per stream ever created (append-only), so a deleted stream is noticed.
- `<stream>/<seq>.parquet`: segments; events inside are numbered and hash-chained per stream.
- `<stream>/manifest.json` and `<stream>/manifest.log`: the ordered segment list with each file's SHA-256.
  A commit appends one line to the log (the commit point); the writer folds the log into manifest.json
  when it closes, so a commit never rewrites anything (`integrity.parse_manifest`).
- `CHECKPOINT`: every committed stream head, itself hash-chained (`checkpoint.py`), so a stream cut
  short or put back to an older copy is noticed.

Each writer holds an exclusive lock on its stream, so Dagster can run partitions in parallel
processes (one stream per partition) while DuckDB only ever reads the segments. Every read goes
through the manifests and checks the segments' hashes first (`integrity.py`).

Where a commit goes is the store's (`store.py`): this folder (the default), or a shared store of immutable
objects and PostgreSQL manifests that many machines append to, of which this folder is then a local mirror.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import queue
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from json.encoder import encode_basestring as _json_str  # json.dumps's escaping, ensure_ascii off
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from lhl_platform import __version__
from lhl_platform.domain.redaction import redact
from lhl_platform.events.checkpoint import Checkpoint
from lhl_platform.events.encoding import encode_payload
from lhl_platform.events.integrity import (
    INGEST_STREAM,
    RECORDED_CORPORA,
    STREAM_PATTERN,
    DamagedLogError,
    HashCache,
    SegmentEntry,
    check_corpora,
    check_stream,
    file_sha256,
    kept_reading,
    parse_manifest,
    read_manifest,
    read_streams,
    rel,
    stream_head_of,
)
from lhl_platform.events.kinds import check_payload
from lhl_platform.events.model import EVENT_COLUMNS, GENESIS, Event
from lhl_platform.events.payloads import CorpusIngested, EventType
from lhl_platform.events.store import FOLDER, SegmentStore, StreamMoved, configured_store

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["event_schema", "STREAM_PATTERN", "DamagedLogError", "EventLog", "SegmentEntry", "StreamWriter",
           "checked_segments", "file_sha256", "read_manifest", "stream_head"]


@cache
def event_schema() -> pa.Schema:
    """The Arrow schema of a segment's rows (pyarrow loads on first use: a command that reads no segment, such as a
    report served from a current warehouse, starts without it)."""
    import pyarrow as pa

    return pa.schema([(name, pa.int64() if name == "seq" else pa.string()) for name in EVENT_COLUMNS])


_SEQ, _CHAIN = EVENT_COLUMNS.index("seq"), EVENT_COLUMNS.index("chain_hash")
_KEY = EVENT_COLUMNS.index("idempotency_key")
_MOVED_RETRIES = 1000  # a writer that loses this many races in a row for one commit gives up
_VERSION = _json_str(__version__)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


# Markers on a background writer's queue (anything else queued is an event to build).
_UNIT, _FLUSH, _CLOSE = object(), object(), object()


@dataclass
class StreamWriter:
    """Buffers events for one stream and commits them as segments; use via `EventLog.writer`.

    A commit writes the buffered events as one immutable segment, appends its entry to the stream's
    manifest log (the commit point) and records the stream's new head in the checkpoint. A commit happens
    when `flush_every` events are buffered, when the oldest buffered event is `flush_seconds` old, or, for a
    caller that marks units of work with `end_unit` (a contract, a verdict), when `flush_units` units have
    ended, whichever comes first (group commit). Nothing is ever rewritten: a commit costs the same on the
    first segment and on the thousandth.

    A `background` writer does the work of an event (its canonical JSON, hashes, chain) and every commit
    on its own thread, so a caller on an event loop only hands over the payload object. Its appends return
    at once and commits happen while the caller keeps working; `pending_units` says how many ended units are
    not committed yet (what a `kill -9` would cost), and `room` lets an async caller wait while too many are.

    An `atomic` writer never flushes on its own: everything appended is committed as one segment when
    the writer closes normally, and nothing at all when it closes with an error."""

    root: Path
    stream: str
    flush_every: int = 5000
    flush_seconds: float | None = None  # also flush when the oldest buffered event is this old
    atomic: bool = False
    background: bool = False
    flush_units: int | None = None  # also flush once this many units (see `end_unit`) have ended
    store: SegmentStore = FOLDER
    _entries: list[SegmentEntry] = field(default_factory=list)
    _keys: set[str] = field(default_factory=set)
    _buffer: list[tuple[Any, ...]] = field(default_factory=list)  # rows in EVENT_COLUMNS order
    _next_seq: int = 0
    _prev_hash: str = GENESIS
    _buffered_since: float = 0.0
    _buffered_units: int = 0
    _session_commits: int = 0
    _queue: queue.SimpleQueue[Any] = field(default_factory=queue.SimpleQueue)
    _thread: threading.Thread | None = None
    _error: BaseException | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # event ids: random and unique, not secret (seeded from the OS, drawn without a system call each)
    _ids: random.Random = field(default_factory=lambda: random.Random(os.urandom(32)))
    _ended_units: int = 0  # units ended by the caller
    _committed_units: int = 0  # of those, units whose events are committed
    written: int = 0
    skipped: int = 0
    commits: int = 0
    thread_cpu_s: float = 0.0  # CPU time the background thread used (building events and committing)

    @property
    def dir(self) -> Path:
        return self.root / self.stream

    def _open(self) -> None:
        # A writer extends only a stream that is intact as far as a reader can tell: its manifest
        # readable, its segments matching their hashes, and not behind its checkpointed head.
        self.store.open_stream(self.root, self.stream)
        self._entries = self._checked_entries()
        self.store.drop_uncommitted(self.root, self.stream, self._entries)
        if self._entries:
            self._next_seq, self._prev_hash = stream_head_of(self._entries)
            self._keys = _keys_of(self.root, [self.dir / e.name for e in self._entries])
        if self.background:
            if self.atomic:
                raise ValueError("an atomic writer commits once, on close; it has no background thread")
            self._thread = threading.Thread(target=self._run, name=f"lhl-writer:{self.stream}", daemon=True)
            self._thread.start()

    def _checked_entries(self) -> list[SegmentEntry]:
        anchors = Checkpoint(self.root).anchors({self.stream}).get(self.stream, [])
        cache = HashCache(self.root)
        entries = check_stream(self.root, self.stream, anchors, cache)
        cache.save()
        return entries

    def has(self, idempotency_key: str) -> bool:
        return idempotency_key in self._keys

    def append(self, type: str, subject: str, idempotency_key: str, payload: BaseModel) -> bool:
        """Append one event; returns False (and writes nothing) when the key is already recorded."""
        if idempotency_key in self._keys:
            self.skipped += 1
            return False
        check_payload(type, payload)
        self._keys.add(idempotency_key)
        self.written += 1
        if self._thread is not None:
            self._raise_if_failed()
            self._queue.put((type, subject, idempotency_key, payload))
            return True
        self._build(type, subject, idempotency_key, payload)
        if not self.atomic and self._due():
            self._commit_rebasing()
        return True

    def end_unit(self) -> None:
        """Mark the end of a unit of work (a contract's events, a verdict): commits happen between units."""
        with self._lock:
            self._ended_units += 1
        if self._thread is not None:
            self._raise_if_failed()
            self._queue.put(_UNIT)
            return
        self._buffered_units += 1
        if not self._buffer:
            self._settle_units()  # a unit that wrote nothing (or whose events are committed) has nothing to lose
        elif not self.atomic and self._due():
            self._commit_rebasing()

    @property
    def pending_units(self) -> int:
        """Units ended but not committed yet: at most what a `kill -9` now would cost."""
        with self._lock:
            return self._ended_units - self._committed_units

    async def room(self, max_pending_units: int) -> None:
        """Wait (without blocking the event loop) while more than `max_pending_units` units await their
        commit, so that a writer that falls behind bounds what a crash can cost."""
        import asyncio  # only the call engine's writers wait; every command that reads events imports this module

        while self.pending_units > max_pending_units:
            self._raise_if_failed()
            await asyncio.sleep(0.002)
        self._raise_if_failed()

    def flush(self) -> None:
        """Commit everything appended so far (for a background writer: wait until its thread has)."""
        if self._thread is None:
            self._commit_rebasing()
            return
        done = threading.Event()
        self._queue.put((_FLUSH, done))
        while not done.wait(0.05):
            if not self._thread.is_alive():
                break
        self._raise_if_failed()

    def close(self) -> None:
        """Commit what is left, stop the background thread and fold the manifest log into manifest.json."""
        try:
            if self._thread is not None:
                self._queue.put(_CLOSE)
                self._thread.join()
                self._thread = None
                self._raise_if_failed()
            else:
                self._commit_rebasing()
        finally:
            if self._session_commits:
                self.store.compact(self.dir, self._entries)

    def discard(self) -> None:
        """Drop what is buffered (an atomic writer closed by an error): none of it was committed."""
        self.written -= len(self._buffer)
        self._buffer.clear()

    # --- building and committing (the caller's thread, or the background thread) ------------------------

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise RuntimeError(f"event writer for {self.stream} failed: {self._error}") from self._error

    def _due(self) -> bool:
        if not self._buffer:
            return False
        return (len(self._buffer) >= self.flush_every
                or (self.flush_units is not None and self._buffered_units >= self.flush_units)
                or (self.flush_seconds is not None
                    and time.monotonic() - self._buffered_since >= self.flush_seconds))

    def _build(self, type: str, subject: str, idempotency_key: str, payload: BaseModel,
               stamp: str | None = None) -> None:
        """Turn one appended payload into the next event of the chain (a row of the next segment)."""
        # redacted: the catch-all, so no credential is ever hash-chained into the log
        body = redact(encode_payload(payload).decode())
        payload_hash = hashlib.sha256(body.encode()).hexdigest()
        event_id = f"{self._ids.getrandbits(128):032x}"
        stamp = stamp or _now()
        seq = self._next_seq
        prev = self._prev_hash
        chain = _chain(prev, event_id, self.stream, seq, str(type), subject, idempotency_key, payload_hash, stamp)
        self._buffer.append((event_id, self.stream, seq, str(type), subject, idempotency_key, body, payload_hash,
                             prev, chain, stamp, __version__))
        self._prev_hash = chain
        self._next_seq += 1
        if len(self._buffer) == 1:
            self._buffered_since = time.monotonic()

    def _run(self) -> None:
        """The background thread: build events in order, commit them in groups."""
        try:
            self._loop()
        except BaseException as exc:  # kept for the caller, who raises it at its next append or on close
            self._error = exc
            while True:  # release anyone waiting on a flush
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if isinstance(item, tuple) and item[0] is _FLUSH:
                    item[1].set()
        finally:
            self.thread_cpu_s = time.thread_time()

    def _loop(self) -> None:
        while True:
            timeout = None
            if self._buffer and self.flush_seconds is not None:
                timeout = max(0.0, self._buffered_since + self.flush_seconds - time.monotonic())
            try:
                items = [self._queue.get(timeout=timeout)]
            except queue.Empty:
                items = []  # the oldest buffered event has waited long enough
            with contextlib.suppress(queue.Empty):
                while len(items) < 4096:  # take what has queued up meanwhile: one clock reading for all
                    items.append(self._queue.get_nowait())
            stamp = _now()
            for item in items:
                if item is _CLOSE:
                    self._commit_rebasing()
                    return
                if isinstance(item, tuple) and item[0] is _FLUSH:
                    self._commit_rebasing()
                    item[1].set()
                    continue
                if item is _UNIT:
                    self._buffered_units += 1
                    if not self._buffer:  # nothing of it awaits a commit: settled now, or `room` would wait
                        self._settle_units()
                else:
                    kind, subject, key, payload = item
                    self._build(kind, subject, key, payload, stamp=stamp)
                if self._due():
                    self._commit_rebasing()
            if self._due():
                self._commit_rebasing()

    def _commit(self) -> None:
        """Write buffered events as one new immutable segment, append its entry to the manifest log (the
        commit), then record the stream's new head in the checkpoint."""
        if not self._buffer:
            self._settle_units()
            return
        first = self._buffer[0][_SEQ]
        columns = dict(zip(EVENT_COLUMNS, map(list, zip(*self._buffer, strict=True)), strict=True))
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pydict(columns, schema=event_schema())
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd")
        data = sink.getvalue().to_pybytes()
        name = f"{first:010d}.parquet"
        entry = SegmentEntry(name=name, sha256=hashlib.sha256(data).hexdigest(), first_seq=first,
                             count=len(self._buffer), last_chain=self._buffer[-1][_CHAIN])
        self.store.commit(self, entry, data)
        self._entries.append(entry)
        self._session_commits += 1
        self.commits += 1
        self._buffer.clear()
        self._settle_units()

    def _commit_rebasing(self) -> None:
        """Commit; when another machine committed to the stream first, take its segments as the new head,
        drop what they already record (by idempotency key) and commit the rest chained onto them."""
        for _ in range(_MOVED_RETRIES):
            try:
                self._commit()
                return
            except StreamMoved:
                self._rebase()
        raise RuntimeError(f"stream {self.stream}: gave up after {_MOVED_RETRIES} commits lost to other writers")

    def _rebase(self) -> None:
        self.store.refresh(self.root)
        entries = self._checked_entries()
        known = {e.name for e in self._entries}
        theirs = [e for e in entries if e.name not in known]
        recorded = _keys_of(self.root, [self.dir / e.name for e in theirs])
        self._entries = entries
        self._keys |= recorded
        self._next_seq, self._prev_hash = stream_head_of(entries)
        kept = [row for row in self._buffer if row[_KEY] not in recorded]
        if self.atomic and len(kept) < len(self._buffer):  # all or nothing: part of it is another writer's now
            raise AtomicConflict(f"stream {self.stream}: another writer recorded {len(self._buffer) - len(kept)} of "
                                 "this all-or-nothing commit's events first; nothing of it was committed")
        self.skipped += len(self._buffer) - len(kept)
        self.written -= len(self._buffer) - len(kept)
        self._buffer = []
        for row in kept:
            event_id, stream, _, kind, subject, key, body, payload_hash, _, _, stamp, version = row
            seq, prev = self._next_seq, self._prev_hash
            chain = _chain(prev, event_id, stream, seq, kind, subject, key, payload_hash, stamp)
            self._buffer.append((event_id, stream, seq, kind, subject, key, body, payload_hash, prev, chain,
                                 stamp, version))
            self._prev_hash, self._next_seq = chain, seq + 1

    def _settle_units(self) -> None:
        with self._lock:
            self._committed_units += self._buffered_units
        self._buffered_units = 0


class AtomicConflict(RuntimeError):
    """An atomic writer lost its stream to a writer that recorded some of the same events: committing the rest
    would split what must land whole."""


class EventLog:
    """The home's event log: many streams of hash-chained events, read back through DuckDB.

    `store` is where commits go (`store.py`; by default the one the environment names). With a shared store
    the folder is a mirror: the first use of `root` and every read bring it up to date."""

    def __init__(self, root: Path, store: SegmentStore | None = None) -> None:
        self._root = Path(root)
        self.store = store if store is not None else configured_store(self._root)
        self._fresh = self.store is FOLDER

    @property
    def root(self) -> Path:
        if not self._fresh:
            self._fresh = True
            self.store.refresh(self._root)
        return self._root

    def refresh(self) -> EventLog:
        """Bring the local folder up to date with every commit of the store (the folder's: nothing to do)."""
        self._fresh = True
        self.store.refresh(self._root)
        return self

    @property
    def glob(self) -> str:
        return str(self.root / "*" / "*.parquet")

    @property
    def checkpoint(self) -> Checkpoint:
        return Checkpoint(self.root)

    def streams(self) -> list[str]:
        """Every stream ever created; raises DamagedLogError when the index is garbled."""
        return read_streams(self.refresh().root)

    def keys(self, stream: str) -> set[str]:
        """Idempotency keys already recorded in a stream (what a re-run would skip)."""
        return _keys_of(self.root, checked_segments(self, [stream]))

    def has_events(self) -> bool:
        return any(self.refresh().root.glob("*/*.parquet"))

    def segments(self, streams: list[str] | None = None, corpora_dir: Path | None = None) -> list[Path]:
        """The committed segments of every stream (or the given ones), each checked before it is read;
        given `corpora_dir`, the stored corpus files are checked as well (see `checked_segments`)."""
        return checked_segments(self, streams, corpora_dir)

    @contextmanager
    def writer(self, stream: str, flush_every: int = 5000, flush_seconds: float | None = None,
               atomic: bool = False, background: bool = False,
               flush_units: int | None = None) -> Iterator[StreamWriter]:
        if not STREAM_PATTERN.fullmatch(stream):
            raise ValueError(f"invalid event stream name {stream!r}")
        stream_dir = self.root / stream
        stream_dir.mkdir(parents=True, exist_ok=True)
        with (stream_dir / ".lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.store.create_stream(self.root, stream)
            writer = StreamWriter(root=self.root, stream=stream, flush_every=flush_every,
                                  flush_seconds=flush_seconds, atomic=atomic, background=background,
                                  flush_units=flush_units, store=self.store)
            writer._open()
            try:
                yield writer
            except BaseException:
                # Events already appended describe work that really happened, so a plain writer keeps
                # them; an atomic writer commits all or nothing.
                if atomic:
                    writer.discard()
                    writer.close()
                else:
                    with contextlib.suppress(Exception):  # the error in hand is the one to report
                        writer.close()
                raise
            writer.close()

    def append(self, stream: str, type: str, subject: str, idempotency_key: str, payload: BaseModel) -> bool:
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
    listed = log.streams()  # with a shared store, this brings the local mirror up to date first
    names = listed if streams is None else list(dict.fromkeys(streams))
    wanted = names if corpora_dir is None else [*names, INGEST_STREAM]
    anchors = log.checkpoint.anchors(None if streams is None else set(wanted))
    cache = HashCache(log.root)
    known = set(listed)
    checked: dict[str, list[Path]] = {}
    ingest_hashes: list[str] = []
    for name in dict.fromkeys(wanted):
        if not STREAM_PATTERN.fullmatch(name):
            raise ValueError(f"invalid event stream name {name!r}")
        entries = check_stream(log.root, name, anchors.get(name, []), cache, listed=name in known)
        checked[name] = [log.root / name / e.name for e in entries]
        if name == INGEST_STREAM:
            ingest_hashes = [e.sha256 for e in entries]
    if corpora_dir is not None:
        # kept by the ingest segments' checked hashes: a report served from its cache then starts no DuckDB
        recorded = kept_reading(log.root, RECORDED_CORPORA, ",".join(ingest_hashes),
                                lambda: _recorded_corpora(log.root, checked[INGEST_STREAM]))
        check_corpora(log.root, corpora_dir, recorded, cache)
    cache.save()
    return [path for name in names for path in checked[name]]


def stream_head(log: EventLog, stream: str) -> tuple[int, str]:
    """A stream's committed head: its event count and the chain hash of its last event ((0, 64 zeros)
    when it has none). This is what the checkpoint records; `lhl verify` proves it from the events."""
    if not STREAM_PATTERN.fullmatch(stream):
        raise ValueError(f"invalid event stream name {stream!r}")
    root = log.refresh().root
    entries, _ = parse_manifest(root / stream, root)
    return stream_head_of(entries)


def _chain(prev: str, event_id: str, stream: str, seq: int, type: str, subject: str, idempotency_key: str,
           payload_hash: str, stamp: str) -> str:
    """Event.chain: the canonical JSON of the header list, spelled out (hashes, ids and the stamp are plain
    ASCII; the other strings are escaped as json.dumps escapes them)."""
    header = (f'["{prev}","{event_id}",{_json_str(stream)},{seq},{_json_str(type)},{_json_str(subject)},'
              f'{_json_str(idempotency_key)},"{payload_hash}","{stamp}",{_VERSION}]')
    return hashlib.sha256(header.encode()).hexdigest()


def _read_segment(root: Path, path: Path, columns: list[str] | None = None) -> pa.Table:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(path) as segment:  # not pq.read_table: it loads pyarrow.dataset, which imports pandas
            return segment.read(columns=columns)
    except (pa.ArrowException, OSError) as exc:
        raise DamagedLogError(rel(root, path), f"unreadable segment ({exc})") from None


def _keys_of(root: Path, paths: list[Path]) -> set[str]:
    found: set[str] = set()
    for path in paths:
        found.update(_read_segment(root, path, ["idempotency_key"]).column(0).to_pylist())
    return found


def _recorded_corpora(root: Path, paths: list[Path]) -> dict[str, dict[str, str]]:
    """Corpus id -> the file hashes its latest ingest recorded, from these (checked) segments of the ingest stream.
    Read with DuckDB, which every reader of the warehouse has loaded: a report then starts without pyarrow."""
    import duckdb

    if not paths:
        return {}
    try:
        with duckdb.connect() as con:
            rows = con.execute("select payload from read_parquet(?) where type = ? order by seq",
                               [[str(p) for p in paths], str(EventType.CORPUS_INGESTED)]).fetchall()
    except duckdb.Error as exc:
        raise DamagedLogError(rel(root, paths[0].parent), f"unreadable segment ({exc})") from None
    recorded: dict[str, dict[str, str]] = {}
    for (payload,) in rows:
        ingest = CorpusIngested.model_validate_json(payload)
        recorded[ingest.corpus_id] = dict(ingest.files)
    return recorded


def _events_of(root: Path, path: Path) -> list[Event]:
    rows = _read_segment(root, path).to_pylist()
    return [Event.model_construct(**row) for row in rows]
