"""Warehouse snapshots in the shared store: a machine that arrives with an empty warehouse starts from the newest
build another machine published instead of rebuilding it from every segment.

Publishing. After a build or refresh on a home attached to the shared store, once the build is current locally,
the writer packs it (the build's DuckDB file and the Parquet files it lists, with `snapshot.json`: its layout,
SQL digest, coverage and fingerprint) into one tar archive, uploads it as `<prefix>/warehouse/<sha256>.tar`
and then records it in the catalog (`lhl_warehouse_snapshots`, `store_catalog.py`) with its coverage: for each
stream, the last manifest row (seq, chain hash) the build staged. The upload runs on a thread of its own that
holds a reader's lock on the build (so it is not collected meanwhile): no reader waits for it, the process
finishes it before it exits, and a failure is a warning, never an error. An object uploaded but never recorded
is never used; `lhl home gc` removes it once an hour old.

Restoring. Where a build would start from nothing (no usable build in the home, or one of another layout or SQL),
the recorded snapshots of today's layout and SQL digest are tried newest first (the one covering the most events
first). One is used only when its coverage is a prefix of the catalog's manifests (each stream's row is committed
with the same chain hash) and of the home's mirror; its archive is checked against the SHA-256 it is named by
before anything in it is read, its `snapshot.json` against its record, and its files as any build's are. The
build is then refreshed like a local one: only the segments after the snapshot are staged. A snapshot that fails
a check is refused by name in a warning and the next older one is tried; with none left, the build starts from
the events as before.

`LHL_WAREHOUSE_SNAPSHOTS=off` neither publishes nor restores.
"""

from __future__ import annotations

import io
import logging
import os
import re
import shutil
import tarfile
import threading
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from lhl_platform.domain.errors import flat
from lhl_platform.events.integrity import file_sha256, parse_manifest
from lhl_platform.events.store_catalog import SnapshotRow
from lhl_platform.events.store_objects import WAREHOUSE
from lhl_platform.warehouse.sql_digest import LAYOUT, sql_digest
from lhl_platform.warehouse.store import BuildRecord, Store

if TYPE_CHECKING:
    from lhl_platform.events.store_shared import SharedStore
    from lhl_platform.home import Home

SNAPSHOTS_ENV = "LHL_WAREHOUSE_SNAPSHOTS"
EXT = "tar"
KEEP = 3  # `lhl home gc` keeps this many snapshots of each layout
GC_GRACE = timedelta(hours=1)  # an unrecorded snapshot object younger than this may be an upload in flight
META = "snapshot.json"
BUILD = "build.duckdb"
_CHUNK = re.compile(r"^chunks/[A-Za-z0-9_]+/[0-9]+-[0-9]+\.parquet$")
_PUBLISH_WAIT_S = 30.0

_log = logging.getLogger("lhl.warehouse")
_pending: list[threading.Thread] = []
_pending_lock = threading.Lock()


class SnapshotMeta(BaseModel):
    """`snapshot.json` in the archive: what the build is, as its catalog record says."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    layout: str
    sql_digest: str
    coverage: dict[str, tuple[int, str]]
    events: int
    fingerprint: str


class SnapshotRefused(Exception):
    """A snapshot that fails a check (one line, naming what)."""


def shared_store_of(home: Home) -> SharedStore | None:
    """The shared store the home's events live in, when snapshots are on; None for a folder home."""
    if os.environ.get(SNAPSHOTS_ENV, "").strip().lower() in ("0", "off", "no", "false"):
        return None
    from lhl_platform.events.store_shared import SharedStore

    store = home.events.store
    return store if isinstance(store, SharedStore) else None


# --- coverage -------------------------------------------------------------------------------------------------


def coverage_of(events_root: Path, segments: list[Path]) -> tuple[dict[str, tuple[int, str]], int] | None:
    """The coverage of a build that staged these segments: each stream's last manifest row (seq, chain hash), and
    the events covered; None when the segments are not a prefix of each stream's manifest."""
    by_stream: dict[str, set[str]] = {}
    for path in segments:
        by_stream.setdefault(path.parent.name, set()).add(path.name)
    coverage: dict[str, tuple[int, str]] = {}
    events = 0
    for stream, names in sorted(by_stream.items()):
        entries = parse_manifest(events_root / stream, events_root)[0]
        prefix = entries[:len(names)]
        if {e.name for e in prefix} != names:
            return None
        coverage[stream] = (prefix[-1].first_seq, prefix[-1].last_chain)
        events += prefix[-1].end
    return coverage, events


# --- publishing -----------------------------------------------------------------------------------------------


def publish_after(home: Home, store: Store, record: BuildRecord, segments: list[Path]) -> None:
    """Publish the build just made current, on a thread of its own (a failure is a warning). Returns once that
    thread holds its reader's lock on the build, so a later writer cannot collect it under the upload."""
    shared = shared_store_of(home)
    if shared is None:
        return
    covered = coverage_of(home.root / "events", segments)
    if covered is None:
        _log.warning("warehouse build %d not published as a snapshot: its segments are not a prefix of the "
                     "event log's manifests", record.build)
        return
    meta = SnapshotMeta(layout=LAYOUT, sql_digest=sql_digest(home), coverage=covered[0], events=covered[1],
                        fingerprint=record.fingerprint)
    ready = threading.Event()
    thread = threading.Thread(target=_publish_thread, args=(home, shared, store, record, meta, ready),
                              name="lhl-snapshot", daemon=False)  # the interpreter finishes it before exiting
    with _pending_lock:
        _pending[:] = [t for t in _pending if t.is_alive()]
        _pending.append(thread)
    thread.start()
    ready.wait(_PUBLISH_WAIT_S)


def wait_for_snapshots(timeout: float | None = None) -> None:
    """Wait for this process's snapshot uploads to finish."""
    with _pending_lock:
        threads = list(_pending)
    for thread in threads:
        thread.join(timeout)


def _publish_thread(home: Home, shared: SharedStore, store: Store, record: BuildRecord, meta: SnapshotMeta,
                    ready: threading.Event) -> None:
    try:
        with store.reading(record) as present:
            ready.set()
            if present:
                publish(home, shared, store, record, meta)
    except Exception as exc:  # noqa: BLE001 - a snapshot is an optimisation: the build stands without it
        _log.warning("warehouse build %d not published as a snapshot (%s)", record.build, flat(exc))
    finally:
        ready.set()


def publish(home: Home, shared: SharedStore, store: Store, record: BuildRecord, meta: SnapshotMeta) -> str | None:
    """Pack, upload and record one build; returns its object's SHA-256 (None when a snapshot of the same layout,
    SQL and coverage is recorded already)."""
    if any(s.coverage == meta.coverage for s in shared.catalog.snapshots(meta.layout, meta.sql_digest)):
        return None
    folder = home.root / "cache" / "snapshots"
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / f".{uuid.uuid4().hex}.{EXT}.part"
    try:
        _pack(store, record, meta, archive)
        sha = file_sha256(archive)
        size = archive.stat().st_size
        key = shared.objects.key(WAREHOUSE, sha, EXT)
        shared.objects.put_file(key, archive)
        # recorded only once the object is whole in the bucket: a snapshot never recorded is never used
        shared.catalog.add_snapshot(SnapshotRow(sha256=sha, layout=meta.layout, sql_digest=meta.sql_digest,
                                                coverage=meta.coverage, events=meta.events, bytes=size, ext=EXT))
        _log.info("published warehouse snapshot %s (%d bytes, %d events)", shared.objects.where(key), size,
                  meta.events)
        return sha
    finally:
        archive.unlink(missing_ok=True)


def _pack(store: Store, record: BuildRecord, meta: SnapshotMeta, target: Path) -> None:
    """The build as a tar archive: `snapshot.json`, `build.duckdb`, then its Parquet files by name (each member
    dated 0 and owned by nobody, so the same build packs to the same bytes)."""
    files = sorted(name for name, _ in store.listed(store.root / record.catalog))

    def member(name: str, size: int) -> tarfile.TarInfo:
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode = size, 0, 0o644
        return info

    with tarfile.open(target, "w", format=tarfile.PAX_FORMAT) as tar:
        body = meta.model_dump_json().encode()
        tar.addfile(member(META, len(body)), io.BytesIO(body))
        for name, path in [(BUILD, store.root / record.catalog), *((f, store.root / f) for f in files)]:
            with path.open("rb") as fh:
                tar.addfile(member(name, os.fstat(fh.fileno()).st_size), fh)


# --- restoring ------------------------------------------------------------------------------------------------


def restore(home: Home, store: Store, build: int, segments: list[Path]) -> BuildRecord | None:
    """Restore the newest usable snapshot as build `build` of this home (not made current: the caller refreshes
    from it); None when there is none."""
    shared = shared_store_of(home)
    if shared is None:
        return None
    listed = {(p.parent.name, p.name) for p in segments}
    try:
        candidates = shared.catalog.snapshots(LAYOUT, sql_digest(home))
    except Exception as exc:  # noqa: BLE001 - no snapshot is only slower
        _log.warning("warehouse snapshots unavailable (%s): building from the events", flat(exc))
        return None
    for snap in candidates:
        where = shared.objects.where(shared.objects.key(WAREHOUSE, snap.sha256, snap.ext))
        if any((s, f"{seq:010d}.parquet") not in listed for s, (seq, _) in snap.coverage.items()):
            continue  # covers segments this home's mirror does not hold (yet)
        try:
            if not shared.catalog.covers(snap.coverage):
                raise SnapshotRefused("its coverage is not a prefix of the catalog's manifests")
            record = _restore_one(shared, store, build, snap, listed)
        except Exception as exc:  # noqa: BLE001 - refused by name; the next one, or a build from the events
            store.discard(build)
            store.build_path(build).unlink(missing_ok=True)
            _log.warning("warehouse snapshot %s refused: %s", where, flat(exc))
            continue
        _log.info("restored warehouse snapshot %s (%d events) as build %d", where, snap.events, build)
        return record
    return None


def _restore_one(shared: SharedStore, store: Store, build: int, snap: SnapshotRow, listed: set[tuple[str, str]]
                 ) -> BuildRecord:
    store.root.mkdir(parents=True, exist_ok=True)
    work = store.root / f".restore-{uuid.uuid4().hex}"
    work.mkdir()
    try:
        archive = work / f"snapshot.{snap.ext}"
        if not shared.objects.download(shared.objects.key(WAREHOUSE, snap.sha256, snap.ext), archive):
            raise SnapshotRefused("its object is missing")
        if file_sha256(archive) != snap.sha256:
            raise SnapshotRefused("its bytes differ from the SHA-256 it is named by")
        store.discard(build)
        tmp = store.build_path(build).with_suffix(".duckdb.tmp")
        renamed = _unpack(archive, snap, store, build, tmp)
        fingerprint = _relocate(store, build, tmp, renamed, snap, listed)
        final = store.build_path(build)
        os.replace(tmp, final)
        return BuildRecord(build=build, catalog=final.name, sha256=file_sha256(final), fingerprint=fingerprint)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _unpack(archive: Path, snap: SnapshotRow, store: Store, build: int, tmp: Path) -> dict[str, str]:
    """Extract the build file to `tmp` and its Parquet files under new names of build `build` (so they never meet
    this home's own); returns old name -> new name."""
    renamed: dict[str, str] = {}
    try:
        with tarfile.open(archive, "r:") as tar:
            members = tar.getmembers()
            if not members or members[0].name != META or not all(m.isfile() for m in members):
                raise SnapshotRefused("not a warehouse snapshot (its members are not the expected files)")
            meta_file = tar.extractfile(members[0])
            assert meta_file is not None
            meta = SnapshotMeta.model_validate_json(meta_file.read())
            if (meta.layout, meta.sql_digest, meta.coverage, meta.events) != (snap.layout, snap.sql_digest,
                                                                             snap.coverage, snap.events):
                raise SnapshotRefused("its snapshot.json differs from its record in the catalog")
            names = [m.name for m in members[1:]]
            if not names or names[0] != BUILD or len(set(names)) != len(names) \
                    or not all(_CHUNK.fullmatch(n) for n in names[1:]):
                raise SnapshotRefused("not a warehouse snapshot (unexpected file names)")
            for i, m in enumerate(members[1:]):
                if m.name == BUILD:
                    target = tmp
                else:
                    table = m.name.split("/")[1]
                    renamed[m.name] = f"chunks/{table}/{build:08d}-{i:06d}.parquet"
                    target = store.root / renamed[m.name]
                    target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(m)
                assert source is not None
                with target.open("wb") as out:
                    shutil.copyfileobj(source, out)
    except (tarfile.TarError, OSError, ValueError) as exc:
        raise SnapshotRefused(f"unreadable ({flat(exc)})") from None
    return renamed


def _relocate(store: Store, build: int, tmp: Path, renamed: dict[str, str], snap: SnapshotRow,
              listed: set[tuple[str, str]]) -> str:
    """Point the restored build at its files' new names (its list and the views over them); checks it staged only
    segments this home lists and was built by the SQL its record names. Returns its fingerprint."""
    import duckdb

    from lhl_platform.warehouse.refresh import Projection

    try:
        con = duckdb.connect(str(tmp))
    except duckdb.Error as exc:
        raise SnapshotRefused(f"not a readable build ({flat(exc)})") from None
    try:
        con.execute("set enable_progress_bar = false")
        con.execute("set file_search_path = " + "'" + str(store.root).replace("'", "''") + "'")
        build_info = dict(con.execute("select name, value from _lhl_build").fetchall())
        if build_info.get("sql") != snap.sql_digest:
            raise SnapshotRefused("its build was made by other SQL than its record names")
        staged = {(str(s), str(n)) for s, n in con.execute("select stream, segment from _lhl_segments").fetchall()}
        if staged - listed:
            raise SnapshotRefused("it staged segments this home's event log does not list")
        files = {str(f) for (f,) in con.execute("select file from _lhl_chunks").fetchall()}
        if files != set(renamed):
            raise SnapshotRefused("its files are not the ones its build lists")
        con.execute("begin")
        con.executemany("update _lhl_chunks set file = ? where file = ?", [[new, old] for old, new in renamed.items()])
        projection = Projection(con, store, build, fresh=False, primary_judge="")
        for (table,) in con.execute("select distinct tbl from _lhl_chunks order by 1").fetchall():
            projection.parquet_view(str(table))
        con.execute("commit")
        con.execute("checkpoint")
    except duckdb.Error as exc:
        raise SnapshotRefused(f"not a readable build ({flat(exc)})") from None
    finally:
        con.close()
    return str(build_info.get("fingerprint", ""))


# --- gc -------------------------------------------------------------------------------------------------------


def collect_snapshots(shared: SharedStore, keep: int = KEEP, older_than: timedelta = GC_GRACE) -> tuple[int, int]:
    """Keep the newest `keep` snapshots of each layout; remove the others (record first, then object) and objects
    never recorded once older than `older_than`: (removed, kept)."""
    seen: dict[str, int] = {}
    kept: set[str] = set()
    dropped: set[str] = set()
    removed = 0
    for snap in shared.catalog.snapshots():
        seen[snap.layout] = seen.get(snap.layout, 0) + 1
        if seen[snap.layout] <= keep:
            kept.add(snap.sha256)
            continue
        shared.catalog.drop_snapshot(snap.sha256)
        shared.objects.delete(shared.objects.key(WAREHOUSE, snap.sha256, snap.ext))
        dropped.add(snap.sha256)
        removed += 1
    cutoff = datetime.now(UTC) - older_than
    for key, modified in list(shared.objects.listing(WAREHOUSE)):
        sha = key.rsplit("/", 1)[-1].split(".", 1)[0]
        if sha not in kept and sha not in dropped and modified <= cutoff:
            shared.objects.delete(key)
            removed += 1
    return removed, len(kept)
