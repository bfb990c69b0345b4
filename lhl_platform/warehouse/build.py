"""Build and read the DuckDB warehouse: a projection of the event log and corpora through the SQL models.

The models come in four layers (`models.py`): generated staging, intermediate, parts and marts. Staging and
intermediate tables hold every corpus, run and judge; parts and marts are computed within a scope (one corpus,
its contracts or a subset, some runs, some models, one judge) given as small `scope*` tables. A stored build holds
the marts of the default scope; a scoped read computes its own parts and marts as temporary tables over the
stored layers (see `scope.py`).

The warehouse can always be rebuilt from the events. A build is refreshed incrementally (`refresh.py`): only the
segments committed since the previous build are staged, and only what they touch is recomputed. Every build is a
new file, published atomically when complete (`store.py`), so readers never wait for a writer: they read the
current build while the next one is written. Writers take turns and say when they wait. A read checks the build
against the digest recorded when it was written and refuses an altered one; a build that cannot be read at all is
rebuilt from the events, and a read-only home is reported on from an in-memory build.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from lhl_platform.corpus.store import CORPUS_STREAM
from lhl_platform.domain.errors import flat
from lhl_platform.events.integrity import file_sha256
from lhl_platform.home import Home
from lhl_platform.registry import primary_judge
from lhl_platform.warehouse import snapshots
from lhl_platform.warehouse.models import (
    EVENT_TABLE,
    LAYERS,
    MACROS,
    SCOPE_TABLES,
    SCOPED,
    SqlModel,
    SqlPackage,
    macros_sql,
    register_sql_folder,
    scope_of,
    scopes,
    source_tables,
    sql_models,
    sql_packages,
)
from lhl_platform.warehouse.refresh import Projection, RestageNeeded
from lhl_platform.warehouse.scope import ScopeRequest, apply_scope, scope_key
from lhl_platform.warehouse.sql_digest import sql_digest
from lhl_platform.warehouse.store import BuildRecord, Store, WarehouseAltered, WarehouseInvalid

if TYPE_CHECKING:
    import duckdb

__all__ = ["LAYERS", "MACROS", "SCOPED", "SCOPE_TABLES", "SqlModel", "SqlPackage", "WarehouseAltered",
           "apply_models", "build_warehouse", "connect", "current_fingerprint", "fingerprint", "macros_sql",
           "memory_warehouse", "partition_connection", "read_warehouse", "register_sql_folder", "sql_models",
           "sql_packages"]

_BLOCK_SIZE = 65536
_log = logging.getLogger("lhl.warehouse")


def connect(path: Path | None = None, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection that never draws a progress bar into the user's terminal."""
    import duckdb  # here, not on import: a report served from its cache never opens the warehouse

    con = duckdb.connect(str(path) if path else ":memory:", read_only=read_only)
    con.execute("set enable_progress_bar = false")
    return con


def _open_build(store: Store, path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    import duckdb

    if not read_only and not path.exists():
        # smaller blocks than the default: a build holds many small tables, each of which takes at least a block
        # (a 16 KiB block is too small for the column segments of its larger tables to compress)
        con = duckdb.connect(str(path), config={"default_block_size": str(_BLOCK_SIZE)})
        con.execute("set enable_progress_bar = false")
    else:
        con = connect(path, read_only=read_only)
    # The build's views read its Parquet files by paths relative to the warehouse folder (a home can be moved).
    con.execute("set file_search_path = " + "'" + str(store.root).replace("'", "''") + "'")
    return con


def fingerprint(home: Home, segments: list[Path] | None = None) -> str:
    """What a build is computed from: the committed segments (immutable, so their names say it; the registry's,
    which name the primary judge, among them), the files the source tables read (a stored corpus's answer key)
    and the SQL."""
    if segments is None:
        segments = home.events.segments(corpora_dir=home.corpora_dir)
    digest = hashlib.sha256(sql_digest(home).encode())
    for path in sorted(segments):
        digest.update(f"{path.parent.name}/{path.name}\n".encode())
    for source in source_tables():
        for line in source.fingerprint(home):
            digest.update(f"{line}\n".encode())
    return digest.hexdigest()


def current_fingerprint(home: Home) -> str | None:
    """The fingerprint of the home's current build when it is up to date with the committed events (their
    segments checked), the stored corpora and the SQL; None when there is no such build (one to refresh first,
    or none that can be trusted)."""
    try:
        record = Store(home.warehouse_path).current()
    except WarehouseInvalid:
        return None
    if record is None:
        return None
    wanted = fingerprint(home)
    return wanted if record.fingerprint == wanted else None


def _note(message: str) -> None:
    print(f"lhl: {message}", file=sys.stderr, flush=True)


# --- building ---------------------------------------------------------------------------------------------


def build_warehouse(home: Home, *, force: bool = False) -> bool:
    """Bring the stored warehouse up to date with the events (a refresh of what changed; everything when `force`,
    which is `lhl warehouse rebuild`); returns False when it was up to date already."""
    store = Store(home.warehouse_path)
    home.ensure()
    with store.writing():
        return _build(home, store, force=force)


def _build(home: Home, store: Store, *, force: bool, problem: str | None = None) -> bool:
    # Check what the results rest on even when nothing changed since the last build (hashes of unchanged
    # files are cached), so damage made since is never read silently.
    segments = home.events.segments(corpora_dir=home.corpora_dir)
    current = fingerprint(home, segments)
    try:
        record = store.current()
    except WarehouseInvalid as exc:
        record, problem = None, str(exc)
    base: BuildRecord | None = None
    if record is not None and not force:
        if record.fingerprint == current:
            try:
                store.check(record)
                return False
            except (WarehouseInvalid, WarehouseAltered) as exc:
                problem = str(exc).split("; ")[0]
        else:
            base = record  # checked once copied (`_write`)
    build = store.next_build(record)
    try:
        made = _write(home, store, build, segments, current, base, problem, restore=not force)
    except RestageNeeded:
        made = _write(home, store, build, segments, current, None, None)
    # Once current here, published to the shared store on a thread of its own (`snapshots.py`): no reader waits.
    snapshots.publish_after(home, store, made, segments)
    return True


class _OtherSql(Exception):
    """The build to refresh from was built by other SQL: a fresh build is needed."""


def _copy_base(store: Store, base: BuildRecord, tmp: Path) -> tuple[duckdb.DuckDBPyConnection | None, str | None]:
    """A copy of the build to refresh from, checked to be what was recorded and made by today's SQL: (its
    connection, None); otherwise (None, what is wrong with it, or None when it is only of other SQL)."""
    import duckdb

    store.copy_build(base, tmp)
    con: duckdb.DuckDBPyConnection | None = None
    try:
        con = _open_build(store, tmp, read_only=False)
        store.check(base, con)
        row = con.execute("select value from _lhl_build where name = 'sql'").fetchone()
        if row is None or row[0] != sql_digest():  # built by other SQL
            raise _OtherSql
        return con, None
    except (WarehouseInvalid, WarehouseAltered, duckdb.Error, _OtherSql) as exc:
        if con is not None:
            con.close()
        tmp.unlink()
        return None, None if isinstance(exc, _OtherSql) else str(exc).split("; ")[0]


def _write(home: Home, store: Store, build: int, segments: list[Path], current: str, base: BuildRecord | None,
           problem: str | None, restore: bool = False) -> BuildRecord:
    """Write build `build` from `base` (refreshed) or from nothing; with `restore`, a build that would start from
    nothing starts from the newest usable snapshot in the shared store instead (`snapshots.py`, as build `build`,
    refreshed into the next). Returns the record made current."""
    store.discard(build)
    con: duckdb.DuckDBPyConnection | None = None
    if base is not None:  # what it refreshes from must be what was recorded: otherwise start afresh
        con, wrong = _copy_base(store, base, store.build_path(build).with_suffix(".duckdb.tmp"))
        if con is None:
            base, problem = None, wrong
    if con is None and restore:
        restored = snapshots.restore(home, store, build, segments)
        if restored is not None:
            build = build + 1
            store.discard(build)
            con, wrong = _copy_base(store, restored, store.build_path(build).with_suffix(".duckdb.tmp"))
            if con is None:
                base, problem = None, wrong
            else:
                if problem:
                    _note(f"{problem}: starting the warehouse afresh from a snapshot in the shared store")
                base, problem = restored, None
    tmp = store.build_path(build).with_suffix(".duckdb.tmp")
    if con is None:
        con = _open_build(store, tmp, read_only=False)
    try:
        if problem:
            _note(f"{problem}: rebuilding the warehouse from the events")
        projection = Projection(con, store, build, fresh=base is None, primary_judge=primary_judge(home))
        # One transaction: the file is private until published, and a commit per statement would sync each one.
        con.execute("begin")
        projection.run(segments, home)
        _log.info("warehouse build %d: staged %d of %d segments (%s)", build, projection.staged, len(segments),
                  "from nothing" if base is None else f"refreshed from build {base.build}")
        con.execute("delete from _lhl_build")
        con.executemany("insert into _lhl_build values (?, ?)",
                        [["sql", sql_digest()], ["fingerprint", current], ["build", str(build)]])
        con.execute("commit")
        listed = {str(f) for (f,) in con.execute("select file from _lhl_chunks").fetchall()}
        con.execute("checkpoint")
        con.close()
        with tmp.open("rb+") as fh:
            os.fsync(fh.fileno())
        final = store.build_path(build)
        os.replace(tmp, final)
        record = store.publish(BuildRecord(build=build, catalog=final.name, sha256=file_sha256(final),
                                           fingerprint=current))
    except BaseException:
        with contextlib.suppress(Exception):
            con.close()
        store.discard(build)
        raise
    store.collect_garbage(record, listed)
    store.remove_legacy(home.root)
    return record


# --- in memory ----------------------------------------------------------------------------------------------


def _load_sources(con: duckdb.DuckDBPyConnection, home: Home, streams: list[str] | None = None) -> None:
    """Load events (all, or only the given streams') and every declared source table."""
    # Only committed segments, each checked against its manifest first (one-line DamagedLogError if not).
    files = [str(p) for p in home.events.segments(streams, home.corpora_dir)]
    if files:
        con.execute("create or replace table events as select * from read_parquet(?, union_by_name = true)",
                    [files])
    else:
        con.execute(f"create or replace table events ({EVENT_TABLE})")
    for source in source_tables():
        source.load(con, home, source.name)


def apply_models(con: duckdb.DuckDBPyConnection, layers: tuple[str, ...] = LAYERS, temp: bool = False,
                 packages: set[str] | None = None) -> None:
    """Every model of these layers as a table (temporary ones over a read-only build), in dependency order."""
    kind = "temp table" if temp else "table"
    if not temp:
        con.execute(macros_sql())
    for model in sql_models(layers=layers, packages=packages):
        con.execute(f"create or replace {kind} {model.name} as {model.sql}")


def memory_warehouse(home: Home, streams: list[str] | None = None, judge: str | None = None
                     ) -> duckdb.DuckDBPyConnection:
    """The whole projection (of every stream, or of the given ones) computed in memory, in the default scope (of
    the given judge): what `lhl verify` compares a stored build with, and what a read-only home is read from."""
    con = connect()
    try:
        _load_sources(con, home, streams)
        apply_models(con, ("staging", "intermediate"))
        con.execute("create or replace table _scope_key (suite varchar, key varchar)")
        for scope, packages in scopes():
            if streams is None or scope.shared:  # a partition's streams: its checks read the shared scope only
                apply_scope(con, scope, ScopeRequest(suite=scope.suite), judge or primary_judge(home))
                apply_models(con, SCOPED, packages=packages)
                con.execute("insert into _scope_key values (?, ?)", [scope.suite, scope_key(con, scope)])
    except BaseException:
        con.close()
        raise
    return con


def partition_connection(home: Home, streams: list[str], judge: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory warehouse over just some streams (one partition), for partition-level checks, in the scope
    of the active corpus."""
    return memory_warehouse(home, [CORPUS_STREAM, *streams], judge=judge)


# --- reading ------------------------------------------------------------------------------------------------


def _same_sql(home: Home, con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the build `con` reads was made by today's SQL and layout."""
    row = con.execute("select value from _lhl_build where name = 'sql'").fetchone()
    return row is not None and row[0] == sql_digest(home)


@contextmanager
def _current_build(home: Home) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to a complete build: the current one when it is up to date; while another process
    writes the next one, the current one as it is; otherwise this process refreshes it first."""
    import duckdb

    store = Store(home.warehouse_path)
    segments = home.events.segments(corpora_dir=home.corpora_dir)
    wanted = fingerprint(home, segments)
    problem: str | None = None
    for _ in range(10):
        try:
            record = store.current()
        except WarehouseInvalid as exc:
            record, problem = None, str(exc)
        writable = store.writable()
        # The current build when it is up to date, or while the next one is being written (never waiting for it).
        if record is not None and (record.fingerprint == wanted or (writable and store.writer_busy())):
            with store.reading(record) as present:
                if present:
                    try:
                        con = _open_build(store, store.root / record.catalog, read_only=True)
                    except duckdb.Error as exc:
                        problem = f"{store.root / record.catalog}: cannot be opened ({flat(exc)})"
                    else:
                        try:
                            store.check(record, con)
                        except WarehouseInvalid as exc:
                            problem = str(exc)
                            con.close()
                        except BaseException:
                            con.close()
                            raise
                        else:
                            if record.fingerprint == wanted or _same_sql(home, con):
                                try:
                                    yield con
                                finally:
                                    con.close()
                                return
                            # built by other SQL (an older layout), which today's code cannot read: take a turn
                            # after the writer instead
                            con.close()
                    record = None
            if record is not None:
                continue  # deleted since the record was read: read it again
        if not writable:
            _note(f"{problem + ': ' if problem else ''}the home is read-only: computing the marts in memory")
            con = memory_warehouse(home)
            try:
                yield con
            finally:
                con.close()
            return
        with store.writing():
            _build(home, store, force=False, problem=problem)
        problem = None
        wanted = fingerprint(home)
    raise WarehouseInvalid(f"{store.root}: no build stayed current long enough to be read")


@contextmanager
def read_warehouse(home: Home, request: ScopeRequest | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to an up-to-date warehouse; with a scope request (of any suite), its marts are
    computed for that scope (as temporary tables over the stored layers), unless it resolves to the stored
    default scope."""
    with _current_build(home) as con:
        if request is not None and request != ScopeRequest(suite=request.suite):
            scope = scope_of(request.suite)
            # The stored marts are the default scope's, computed with the primary judge of the same events.
            apply_scope(con, scope, request, primary_judge(home), temp=True)
            stored = con.execute("select key from _scope_key where suite = ?", [scope.suite]).fetchone()
            if stored is not None and stored[0] == scope_key(con, scope):  # its marts are stored already
                for table in scope.tables:
                    con.execute(f"drop table temp.{table}")
            else:
                apply_models(con, SCOPED, temp=True, packages=next(p for s, p in scopes() if s == scope))
        yield con
