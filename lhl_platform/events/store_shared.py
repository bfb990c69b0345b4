"""The shared store: segments as immutable objects named by their SHA-256, commits as rows in PostgreSQL.

Many machines, each with its own `LHL_HOME`, append to and read one body of evidence. An append:

1. writes the segment to this machine's object cache (`<home>/cache/segments/<sha256>.parquet`) and uploads
   it to `<prefix>/segments/<sha256>.parquet` (a segment of the `corpus` stream uploads the corpus files
   its ingest events record too, as `<prefix>/corpora/<sha256>.parquet`);
2. commits it: one row in the catalog under `UNIQUE (stream, seq)` (`store_catalog.py`). The loser of a race
   gets `StreamMoved`; its writer re-reads the head and commits again on top of it. An object uploaded but
   never committed is invisible to every reader, and `lhl home gc` removes it later;
3. refreshes the local mirror.

The mirror is `<home>/events/` in the folder layout, written only by `refresh`: for each catalog row after
the last one this home has read, the segment comes from the object cache (its hash checked on every use)
or the bucket (its hash checked before it is cached; the segments a refresh lacks are fetched several at a
time), is linked into `<stream>/<seq>.parquet` and its entry appended to the manifest log (never compacted: a
commit costs the same on the thousandth segment); the rows' checkpoint lines are then appended to
`CHECKPOINT`. So every reader, the warehouse's incremental refresh and `lhl verify` included, reads local
files exactly as on a folder home.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import logging
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.parquet as pq

from lhl_platform.events.checkpoint import Checkpoint
from lhl_platform.events.integrity import (
    INGEST_STREAM,
    STREAMS_INDEX,
    DamagedLogError,
    SegmentEntry,
    append_manifest,
    file_sha256,
    parse_manifest,
    read_streams,
)
from lhl_platform.events.model import GENESIS
from lhl_platform.events.payloads import CorpusIngested, EventType
from lhl_platform.events.store_catalog import Catalog, Row
from lhl_platform.events.store_objects import CORPORA, SEGMENTS, ObjectStore, fetchers

if TYPE_CHECKING:
    from lhl_platform.events.log import StreamWriter

_log = logging.getLogger("lhl.events")
STATE = ".shared-store.json"  # in the mirror: which store it mirrors and how far it has read
SYNC_LOCK = ".sync.lock"
GC_GRACE = timedelta(hours=1)  # an uncommitted object younger than this may belong to an append in flight


class NotAMirrorError(RuntimeError):
    pass


@dataclass
class SharedStore:
    objects: ObjectStore
    catalog: Catalog

    # --- paths of the home around the event log (`root` is `<home>/events`) ------------------------------

    @staticmethod
    def cache_dir(root: Path) -> Path:
        return root.parent / "cache" / SEGMENTS

    @staticmethod
    def corpora_dir(root: Path) -> Path:
        return root.parent / "corpora"  # Home.corpora_dir (the home layer sits above this one)

    # --- the store interface (store.py) --------------------------------------------------------------------

    def create_stream(self, root: Path, stream: str) -> None:
        self.catalog.add_stream(stream)
        self.refresh(root)

    def open_stream(self, root: Path, stream: str) -> None:
        self.refresh(root)

    def drop_uncommitted(self, root: Path, stream: str, committed: list[SegmentEntry]) -> None:
        return None  # the mirror holds committed segments only; the bucket's leftovers are `gc`'s

    def compact(self, stream_dir: Path, entries: list[SegmentEntry]) -> None:
        return None  # the mirror's manifests are refresh's to write

    def commit(self, writer: StreamWriter, entry: SegmentEntry, data: bytes) -> None:
        self._cache_bytes(writer.root, entry.sha256, data)
        self.objects.put(self.objects.key(SEGMENTS, entry.sha256), data)
        if writer.stream == INGEST_STREAM:
            self.upload_corpora(self.corpora_dir(writer.root), data)
        prev = writer._entries[-1].last_chain if writer._entries else GENESIS
        self.catalog.commit(writer.stream, entry, prev)
        # Committed from here on: a mirror that cannot refresh now (an object of another machine's unreadable) is
        # not a failed append; the next read refreshes it, and reports what it cannot read.
        try:
            self.refresh(writer.root)
        except Exception as exc:  # noqa: BLE001 - any refresh failure; the commit above stands
            _log.warning("committed %s to stream %s; the local mirror will refresh on the next read (%s)",
                         entry.name, writer.stream, exc)

    def upload_corpora(self, corpora_dir: Path, segment: bytes) -> None:
        """Upload the stored corpus files that the ingest events of a `corpus` segment record."""
        for corpus_id, name, digest in _corpus_files(segment):
            path = corpora_dir / corpus_id / name
            if path.is_file() and file_sha256(path) == digest:
                self.objects.put(self.objects.key(CORPORA, digest), path.read_bytes())

    def refresh(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        with _flock(root / SYNC_LOCK):
            line = self._read_state(root)
            rows = self.catalog.rows_after(line)
            names = self.catalog.streams()  # after the rows: every row's stream was created before it
            listed = read_streams(root)
            missing = [n for n in names if n not in set(listed)]
            for name in names:
                (root / name).mkdir(exist_ok=True)
            if missing:
                with (root / STREAMS_INDEX).open("a") as index:
                    index.write("".join(f"{n}\n" for n in missing))
            Checkpoint(root).touch()
            if not rows:
                return
            self._prefetch(root, rows)
            entries: dict[str, list[SegmentEntry]] = {}
            for row in rows:
                have = entries.get(row.stream)
                if have is None:
                    have = entries[row.stream] = parse_manifest(root / row.stream, root)[0]
                self._materialize(root, row, have)
            path = Checkpoint(root).path
            with path.open("ab") as fh:
                fh.write(b"".join(r.checkpoint.encode() + b"\n" for r in rows))
            self._write_state(root, rows[-1].line, path.stat().st_size)

    # --- heads: the events a machine has, named alike on every machine ----------------------------------

    def head(self) -> str:
        """The catalog's head: the store, its last checkpoint line and that line's hash (which chains every
        commit before it)."""
        line, text = self.catalog.head()
        return _head(self.catalog.store_id(), line, text)

    def mirror_head(self, root: Path) -> str | None:
        """The same for the commits this home's mirror holds (read, not refreshed); None without a mirror."""
        if not (root / STATE).is_file():
            return None
        with _flock(root / SYNC_LOCK):
            line = self._read_state(root)
            path = Checkpoint(root).path
            last = b""
            if line and path.is_file():
                with path.open("rb") as fh:
                    fh.seek(max(0, path.stat().st_size - 4096))
                    last = fh.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        return _head(self.catalog.store_id(), line, last.decode())

    # --- the mirror --------------------------------------------------------------------------------------

    def _read_state(self, root: Path) -> int:
        """How many catalog lines the mirror holds; refuses a folder log or a mirror of another store."""
        store_id = self.catalog.store_id()
        try:
            state = json.loads((root / STATE).read_bytes())
        except FileNotFoundError:
            if (root / STREAMS_INDEX).exists() or Checkpoint(root).exists():
                raise NotAMirrorError(
                    f"{root} holds a folder event log, not a mirror of the shared store: copy it in with "
                    "`lhl home migrate` and use a new LHL_HOME with the shared store") from None
            self._write_state(root, 0, 0, store_id)
            return 0
        if state.get("store") != store_id:
            raise NotAMirrorError(f"{root} mirrors another shared store; use a new LHL_HOME for this one")
        line, size = int(state["line"]), int(state["size"])
        path = Checkpoint(root).path
        actual = path.stat().st_size if path.exists() else 0
        if actual != size:  # a refresh died after appending checkpoint lines and before saving its state
            data = path.read_bytes() if path.exists() else b""
            cut = data.rfind(b"\n") + 1
            if cut < len(data):
                with path.open("r+b") as fh:
                    fh.truncate(cut)
            line = data[:cut].count(b"\n")
            self._write_state(root, line, cut, store_id)
        return line

    def _write_state(self, root: Path, line: int, size: int, store_id: str | None = None) -> None:
        state = {"line": line, "size": size, "store": store_id or self.catalog.store_id()}
        tmp = root / f"{STATE}.tmp"
        tmp.write_text(json.dumps(state))
        os.replace(tmp, root / STATE)

    def _materialize(self, root: Path, row: Row, have: list[SegmentEntry]) -> None:
        entry = row.entry
        stream_dir = root / row.stream
        done = next((e for e in have if e.first_seq == entry.first_seq), None)
        if done is not None:  # a refresh that died before its checkpoint lines got this far
            if done != entry:
                raise DamagedLogError(f"events/{row.stream}", f"the local {done.name} differs from the catalog's")
            return
        expected = have[-1].end if have else 0
        if entry.first_seq != expected:
            raise DamagedLogError(f"events/{row.stream}", f"the catalog's next segment starts at seq "
                                  f"{entry.first_seq}, the local mirror at {expected}")
        cached = self._cached(root, row)
        if row.stream == INGEST_STREAM:
            self._materialize_corpora(root, cached.read_bytes())
        tmp = stream_dir / f".{entry.name}.tmp"
        tmp.unlink(missing_ok=True)
        try:
            os.link(cached, tmp)
        except OSError:  # another file system, or no hard links: a copy
            tmp.write_bytes(cached.read_bytes())
        os.replace(tmp, stream_dir / entry.name)
        append_manifest(stream_dir, entry)
        have.append(entry)

    def _prefetch(self, root: Path, rows: list[Row]) -> None:
        """Fetch the rows' segments that the cache lacks, `fetchers()` at a time (a cold home's refresh waits on
        one round trip per segment otherwise); each is hash-checked as `_cached` does. The first row in commit
        order that cannot be fetched or checked raises, as the one-by-one refresh would."""
        cache = self.cache_dir(root)
        wanted = {r.sha256: r for r in rows if not (cache / f"{r.sha256}.parquet").is_file()}
        if len(wanted) < 2:
            return
        with ThreadPoolExecutor(max_workers=min(fetchers(), len(wanted)), thread_name_prefix="lhl-fetch") as pool:
            for _ in pool.map(lambda row: self._cached(root, row), wanted.values()):
                pass

    def _cached(self, root: Path, row: Row) -> Path:
        """The segment's bytes in the local cache, checked against the catalog's hash (fetched when absent
        or not matching)."""
        path = self.cache_dir(root) / f"{row.sha256}.parquet"
        if path.is_file() and file_sha256(path) == row.sha256:
            return path
        key = self.objects.key(SEGMENTS, row.sha256)
        data = self.objects.get(key)
        if data is None:
            raise DamagedLogError(self.objects.where(key), f"object of stream {row.stream} segment "
                                  f"{row.entry.name}, committed in the catalog, is missing")
        if hashlib.sha256(data).hexdigest() != row.sha256:
            raise DamagedLogError(self.objects.where(key), f"object of stream {row.stream} segment "
                                  f"{row.entry.name}: bytes differ from the SHA-256 in the catalog")
        return self._cache_bytes(root, row.sha256, data)

    def _cache_bytes(self, root: Path, sha256: str, data: bytes) -> Path:
        folder = self.cache_dir(root)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{sha256}.parquet"
        tmp = folder / f".{sha256}.{os.getpid()}.{threading.get_ident()}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, path)
        return path

    def _materialize_corpora(self, root: Path, segment: bytes) -> None:
        for corpus_id, name, digest in _corpus_files(segment):
            folder = self.corpora_dir(root) / corpus_id
            path = folder / name
            if path.is_file() and file_sha256(path) == digest:
                continue
            key = self.objects.key(CORPORA, digest)
            data = self.objects.get(key)
            if data is None or hashlib.sha256(data).hexdigest() != digest:
                what = "is missing" if data is None else "bytes differ from the SHA-256 its ingest event recorded"
                raise DamagedLogError(self.objects.where(key), f"corpus file {corpus_id}/{name} {what}")
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f".{name}.tmp"
            tmp.write_bytes(data)
            os.replace(tmp, path)

    # --- verify and gc ---------------------------------------------------------------------------------------

    def verify(self, root: Path) -> tuple[list[str], int]:
        """The catalog's chains and every committed object's bytes, and the mirror against the catalog:
        (problems, objects read). Every object is read from the bucket, never from the cache."""
        problems: list[str] = []
        rows = self.catalog.rows_after(0)
        prev_line = GENESIS
        heads: dict[str, tuple[int, str]] = {}
        for row in rows:
            doc = json.loads(row.checkpoint)
            expected = {"prev": prev_line, "stream": row.stream, "count": row.seq + row.count, "head": row.last_chain}
            if any(doc.get(k) != v for k, v in expected.items()):
                problems.append(f"catalog line {row.line}: its checkpoint entry does not chain or match its segment")
            prev_line = hashlib.sha256(row.checkpoint.encode()).hexdigest()
            if heads.get(row.stream, (0, GENESIS)) != (row.seq, row.prev_head):
                problems.append(f"catalog line {row.line}: stream {row.stream} seq {row.seq} does not follow its "
                                "previous segment")
            heads[row.stream] = (row.seq + row.count, row.last_chain)
            key = self.objects.key(SEGMENTS, row.sha256)
            data = self.objects.get(key)
            if data is None:
                problems.append(f"{self.objects.where(key)}: object of stream {row.stream} segment {row.entry.name} "
                                "is missing")
            elif hashlib.sha256(data).hexdigest() != row.sha256:
                problems.append(f"{self.objects.where(key)}: object of stream {row.stream} segment "
                                f"{row.entry.name}: bytes differ from the SHA-256 in the catalog")
        by_stream: dict[str, list[SegmentEntry]] = {}
        for row in rows:
            by_stream.setdefault(row.stream, []).append(row.entry)
        for stream, entries in sorted(by_stream.items()):
            try:
                local = parse_manifest(root / stream, root)[0]
            except DamagedLogError:
                continue  # the local checks name it
            if local != entries:
                problems.append(f"events/{stream}: the local manifest differs from the catalog's")
        return problems, len(rows)

    def gc(self, older_than: timedelta = GC_GRACE) -> tuple[int, int]:
        """Delete segment objects that no catalog row commits and that are older than `older_than`:
        (deleted, committed objects kept)."""
        committed = self.catalog.hashes()
        cutoff = datetime.now(UTC) - older_than
        deleted = kept = 0
        for key, modified in list(self.objects.listing(SEGMENTS)):
            sha = key.rsplit("/", 1)[-1].removesuffix(".parquet")
            if sha in committed:
                kept += 1
            elif modified <= cutoff:
                self.objects.delete(key)
                deleted += 1
        return deleted, kept


def _head(store_id: str, line: int, checkpoint: str) -> str:
    return f"{store_id}:{line}:{hashlib.sha256(checkpoint.encode()).hexdigest() if line else ''}"


def _corpus_files(segment: bytes) -> Iterator[tuple[str, str, str]]:
    """(corpus id, file name, SHA-256) of the files each `corpus.ingested` event in a segment records."""
    table = pq.read_table(io.BytesIO(segment), columns=["type", "payload"])
    for kind, payload in zip(table.column("type").to_pylist(), table.column("payload").to_pylist(), strict=True):
        if kind == EventType.CORPUS_INGESTED:
            ingest = CorpusIngested.model_validate_json(payload)
            for name, digest in sorted(ingest.files.items()):
                if Path(name).name == name:
                    yield ingest.corpus_id, name, digest


@contextlib.contextmanager
def _flock(path: Path) -> Iterator[None]:
    with path.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


_stores: dict[tuple[str, str], SharedStore] = {}
_stores_lock = threading.Lock()


def shared_store(events_url: str, catalog_url: str) -> SharedStore:
    """The shared store for these URLs, one per process (its catalog connection is reused)."""
    with _stores_lock:
        store = _stores.get((events_url, catalog_url))
        if store is None:
            store = _stores[(events_url, catalog_url)] = SharedStore(ObjectStore.parse(events_url),
                                                                     Catalog(catalog_url))
        return store
