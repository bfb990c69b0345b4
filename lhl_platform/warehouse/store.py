"""The warehouse folder: complete builds, the record of the current one, and who may read or write them.

Layout under `<home>/warehouse/`:

- `build-<n>.duckdb`: one complete build (the small tables, the partitions' manifest, views over the Parquet
  files). A build is written to a new file (a copy of the current one, refreshed) and never changed once published.
- `chunks/<table>/<n>-<i>.parquet`: the rows of the models that grow with the instances, one file per partition,
  written once; a build lists the files it reads with their SHA-256.
- `CURRENT`: which build is current, its file's SHA-256 and the fingerprint of the evidence it was built from,
  sealed with an HMAC whose key lives outside the home (the hash cache's, `events/cache_key.py`). It is
  replaced atomically, so a reader always finds a complete build.
- `writer.lock`: writers (builds) take turns on it; one that has to wait says so. `build-<n>.lock`: every reader
  holds a shared lock on the build it reads, so a build is only deleted once nobody reads it. Readers never wait:
  they read the current build while the next one is written.

A read checks the build against its record (`check`): a file that is not what was recorded is refused
(`WarehouseAltered`, pointing to `lhl verify`), a build that cannot be read at all (`WarehouseInvalid`: missing,
empty, not a database) is rebuilt from the events.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import re
import shutil
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from lhl_platform.domain.errors import flat
from lhl_platform.events.cache_key import cache_key
from lhl_platform.events.integrity import file_sha256, rel

if TYPE_CHECKING:
    import duckdb

CURRENT = "CURRENT"
WRITER_LOCK = "writer.lock"
CHUNKS = "chunks"
_BUILD = re.compile(r"^build-([0-9]{8,})\.duckdb$")
_DUCKDB_MAGIC = b"DUCK"  # at offset 8 of every DuckDB database file
_PARQUET_MAGIC = b"PAR1"
_SETTLE_NS = 2_000_000_000


class WarehouseAltered(RuntimeError):
    """A stored build differs from what was recorded when it was written (one line)."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}; the warehouse was altered since it was built (run `lhl verify` to see "
                         "what differs from the events, `lhl warehouse rebuild` to rebuild it)")


class WarehouseInvalid(RuntimeError):
    """A stored build that cannot be read at all (missing, empty, not a database): rebuilt from the events."""


@dataclass(frozen=True)
class BuildRecord:
    build: int
    catalog: str  # the build's DuckDB file, in the warehouse folder
    sha256: str  # of that file
    fingerprint: str  # of the evidence, SQL and primary judge it was built from
    seal: str = ""

    def body(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "seal"}


def _seal(body: dict[str, Any]) -> str:
    key = cache_key()
    if key is None:
        return ""
    return hmac.new(key, json.dumps(body, sort_keys=True).encode(), hashlib.sha256).hexdigest()


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _starts_with(path: Path, magic: bytes, offset: int = 0) -> bool:
    try:
        with path.open("rb") as fh:
            fh.seek(offset)
            return fh.read(len(magic)) == magic
    except OSError:
        return False


class _Hashes:
    """SHA-256 of the warehouse's files already seen to match, keyed by stat (`<warehouse>/.file-hashes`), like the
    event log's hash cache (`integrity.HashCache`) but sealed once as a whole, with the same key: a build lists
    thousands of files, and checking a seal per entry would cost more than the read it saves. A file changed in
    any ordinary way is hashed again; a cache whose seal does not hold is not used."""

    NAME = ".file-hashes"

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / self.NAME
        self._key = cache_key()
        self._entries: dict[str, list[Any]] = {}
        self._dirty = False
        try:
            seal, body = self.path.read_bytes().split(b"\n", 1) if self._key is not None else (b"", b"")
            if self._key is not None and hmac.compare_digest(seal.decode(), self._seal(body)):
                loaded = json.loads(body)
                if isinstance(loaded, dict):
                    self._entries = loaded
        except (OSError, ValueError):
            pass  # a missing or damaged cache only costs a rehash

    def _seal(self, body: bytes) -> str:
        assert self._key is not None
        return hmac.new(self._key, body, hashlib.sha256).hexdigest()

    def sha256(self, path: Path, name: str) -> str:
        """The file's hash; `name` is its path relative to the warehouse folder (the cache's key)."""
        st = path.stat()
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        cached = self._entries.get(name)
        if cached is not None and cached[:4] == stamp:
            return str(cached[4])
        digest = file_sha256(path)
        # A file this recent may still change within the same clock tick without its stat changing (git's caution).
        if self._key is not None and time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > _SETTLE_NS:
            self._entries[name] = [*stamp, digest]
            self._dirty = True
        return digest

    def prune(self, keep: set[str]) -> None:
        gone = [k for k in self._entries if k not in keep]
        for name in gone:
            del self._entries[name]
        self._dirty = self._dirty or bool(gone)

    def save(self) -> None:
        if not self._dirty or self._key is None:
            return
        body = json.dumps(self._entries, separators=(",", ":")).encode()
        tmp = self.root / f"{self.NAME}.{uuid.uuid4().hex}.tmp"
        try:
            tmp.write_bytes(self._seal(body).encode() + b"\n" + body)
            os.replace(tmp, self.path)
        except OSError:
            # only an optimisation: a read-only or full home keeps working without it
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        self._dirty = False


class Store:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @property
    def chunks(self) -> Path:
        return self.root / CHUNKS

    def build_path(self, build: int) -> Path:
        return self.root / f"build-{build:08d}.duckdb"

    def writable(self) -> bool:
        """Whether builds can be written here (a read-only home is still reported on, from memory)."""
        target = self.root if self.root.exists() else self.root.parent
        return os.access(target, os.W_OK)

    # --- the record of the current build -------------------------------------------------------------------

    def current(self) -> BuildRecord | None:
        """The current build's record; None when there is none yet; WarehouseInvalid when it is unreadable or its
        seal does not hold (forged, or sealed with another key: either way the build cannot be trusted)."""
        path = self.root / CURRENT
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise WarehouseInvalid(f"{path}: unreadable ({exc.strerror})") from None
        try:
            doc = json.loads(raw)
            record = BuildRecord(build=int(doc["build"]), catalog=str(doc["catalog"]), sha256=str(doc["sha256"]),
                                 fingerprint=str(doc["fingerprint"]), seal=str(doc.get("seal", "")))
        except (ValueError, KeyError, TypeError):
            raise WarehouseInvalid(f"{path}: not a build record") from None
        if not _BUILD.fullmatch(record.catalog):
            raise WarehouseInvalid(f"{path}: names no build file")
        expected = _seal(record.body())
        if expected and not hmac.compare_digest(expected, record.seal):
            raise WarehouseInvalid(f"{path}: its seal does not match (forged, or sealed with another key)")
        return record

    def publish(self, record: BuildRecord) -> BuildRecord:
        """Make a complete build the current one: a new record, renamed over the old one."""
        sealed = BuildRecord(**{**record.body(), "seal": _seal(record.body())})
        tmp = self.root / f".{CURRENT}.{os.getpid()}.tmp"
        with tmp.open("w") as fh:
            json.dump(asdict(sealed), fh, indent=1)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.root / CURRENT)
        _fsync_dir(self.root)
        self.build_path(sealed.build).with_suffix(".lock").touch()
        return sealed

    # --- checks --------------------------------------------------------------------------------------------

    def check(self, record: BuildRecord, con: duckdb.DuckDBPyConnection | None = None) -> None:
        """The build's file and every Parquet file it lists against their recorded SHA-256 (hashes of unchanged
        files come from a sealed cache); `con`, when given, is a connection to the build to list them with.
        Raises WarehouseAltered or WarehouseInvalid."""
        catalog = self.root / record.catalog
        if not catalog.is_file():
            raise WarehouseInvalid(f"{catalog}: build file missing")
        cache = _Hashes(self.root)
        try:
            if cache.sha256(catalog, record.catalog) != record.sha256:
                if not _starts_with(catalog, _DUCKDB_MAGIC, 8):
                    raise WarehouseInvalid(f"{catalog}: not a DuckDB database (empty or cut short)")
                raise WarehouseAltered(rel(self.root, catalog), "differs from the SHA-256 recorded at its build")
            for name, sha in self.listed(catalog, con):
                path = self.root / name
                if not path.is_file():
                    raise WarehouseInvalid(f"{path}: listed by {record.catalog} but missing")
                if cache.sha256(path, name) != sha:
                    if not (_starts_with(path, _PARQUET_MAGIC) and path.stat().st_size > 8):
                        raise WarehouseInvalid(f"{path}: not a Parquet file (empty or cut short)")
                    raise WarehouseAltered(rel(self.root, path), "differs from the SHA-256 its build recorded")
        finally:
            cache.save()

    def listed(self, catalog: Path, con: duckdb.DuckDBPyConnection | None = None) -> list[tuple[str, str]]:
        """The Parquet files a build reads, with their SHA-256."""
        import duckdb

        own = con is None
        try:
            if con is None:
                con = duckdb.connect(str(catalog), read_only=True)
            return [(str(f), str(s)) for f, s in con.execute("select file, sha256 from _lhl_chunks").fetchall()]
        except duckdb.Error as exc:
            raise WarehouseInvalid(f"{catalog}: not a complete build ({flat(exc)})") from None
        finally:
            if own and con is not None:
                con.close()

    # --- locks ---------------------------------------------------------------------------------------------

    @contextmanager
    def writing(self, say: TextIO | None = None) -> Iterator[None]:
        """The writer's turn: waits for a build another process is writing, saying so."""
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / WRITER_LOCK).open("a+") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock.seek(0)
                holder = lock.read().strip() or "another process"
                print(f"lhl: waiting for {holder} to finish writing the warehouse ({self.root}) ...",
                      file=say or sys.stderr, flush=True)
                fcntl.flock(lock, fcntl.LOCK_EX)
            lock.seek(0)
            lock.truncate()
            lock.write(f"pid {os.getpid()}")
            lock.flush()
            yield

    def writer_busy(self) -> bool:
        """Whether another process is writing a build now."""
        path = self.root / WRITER_LOCK
        try:
            with path.open("r") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:
                    return True
                return False
        except OSError:
            return False

    @contextmanager
    def reading(self, record: BuildRecord) -> Iterator[bool]:
        """A shared lock on a build for as long as it is read; yields False when the build is no longer there
        (deleted since the record was read: read the record again)."""
        lock_path = self.build_path(record.build).with_suffix(".lock")
        try:
            fd = os.open(lock_path, os.O_RDONLY)
        except FileNotFoundError:
            yield False
            return
        except OSError:
            # A home we may not even open files of for reading is beyond locking; read it as it is.
            yield (self.root / record.catalog).is_file()
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:  # being deleted
                yield False
                return
            yield (self.root / record.catalog).is_file()
        finally:
            os.close(fd)

    # --- clean-up ------------------------------------------------------------------------------------------

    def collect_garbage(self, current: BuildRecord, listed: set[str]) -> None:
        """Delete the builds nobody reads any more and the Parquet files no remaining build lists (`listed`: the
        current build's), and what a build that failed left behind. Called by the writer, under its lock."""
        kept = {current.catalog}
        for path in sorted(self.root.glob("build-*.duckdb")):
            if path.name == current.catalog:
                continue
            lock_path = path.with_suffix(".lock")
            try:
                fd = os.open(lock_path, os.O_RDONLY | os.O_CREAT, 0o644)
            except OSError:
                kept.add(path.name)
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                kept.add(path.name)  # still read
                os.close(fd)
                continue
            try:
                path.unlink(missing_ok=True)
                lock_path.unlink(missing_ok=True)
            finally:
                os.close(fd)
        for lock_path in self.root.glob("build-*.lock"):
            if lock_path.with_suffix(".duckdb").name not in kept:
                lock_path.unlink(missing_ok=True)
        for tmp in [*self.root.glob("*.tmp"), *self.root.glob(".*.tmp")]:
            tmp.unlink(missing_ok=True)
        listed = set(listed)
        for name in kept - {current.catalog}:  # builds still being read keep their files
            with contextlib.suppress(WarehouseInvalid):
                listed.update(f for f, _ in self.listed(self.root / name))
        root = str(self.root) + os.sep
        for path in self.chunks.rglob("*.parquet") if self.chunks.is_dir() else []:
            if str(path)[len(root):] not in listed:
                path.unlink(missing_ok=True)
        cache = _Hashes(self.root)
        cache.prune(kept | listed)
        cache.save()

    def remove_legacy(self, home_root: Path) -> None:
        """The single-file warehouse of earlier versions is a projection like any build: removed."""
        for name in ("warehouse.duckdb", "warehouse.duckdb.wal", "warehouse.lock"):
            with contextlib.suppress(OSError):
                (home_root / name).unlink(missing_ok=True)

    def discard(self, build: int) -> None:
        """What a failed build wrote: its file and its Parquet files."""
        self.build_path(build).with_suffix(".duckdb.tmp").unlink(missing_ok=True)
        if self.chunks.is_dir():
            for path in self.chunks.rglob(f"{build:08d}-*.parquet"):
                path.unlink(missing_ok=True)

    def next_build(self, record: BuildRecord | None) -> int:
        numbers = [int(m.group(1)) for p in self.root.glob("build-*.duckdb") if (m := _BUILD.fullmatch(p.name))]
        return max([record.build if record else 0, *numbers]) + 1

    def copy_build(self, record: BuildRecord, target: Path) -> None:
        shutil.copyfile(self.root / record.catalog, target)
