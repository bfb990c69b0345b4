"""Build the DuckDB warehouse: source tables from the event log and corpora, then the SQL models.

The models come in three layers (`sql/staging`, `sql/intermediate`, `sql/marts`). Staging and
intermediate tables hold every corpus, run and judge; the marts are computed within a scope (one corpus,
its contracts or a subset, some runs, some models, one judge) given as small `scope*` tables. The stored
warehouse holds the marts of the default scope; a scoped read computes its own marts as temporary tables
over the stored layers (see `scope.py`).

The warehouse is a projection: it can always be rebuilt from the events. DuckDB allows one writing
process per file, so builds take an exclusive file lock, and a build is skipped when the event log
and corpora are unchanged since the last one (their fingerprint is stored in `_build`).
"""

from __future__ import annotations

import fcntl
import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from graphlib import TopologicalSorter
from pathlib import Path

import duckdb
import pyarrow as pa

from lhl_platform.corpus.store import CORPUS_STREAM
from lhl_platform.domain.taxonomy import CATEGORY_OF, CLAUSE_TYPES
from lhl_platform.events.kinds import registered_kinds
from lhl_platform.events.log import SCHEMA
from lhl_platform.home import Home
from lhl_platform.registry import primary_judge
from lhl_platform.warehouse.scope import ScopeError, ScopeRequest, apply_scope
from lhl_platform.warehouse.staging import staging_description, staging_sql
from lhl_platform.warehouse.suite_scope import SuiteScope, SuiteScopeRequest, apply_suite_scope
from sql import SQL_DIR

_DEPENDS = re.compile(r"^--\s*depends_on:\s*(.+)$", re.MULTILINE)
LAYERS = ("staging", "intermediate", "marts")
SCOPE_TABLES = ("scope", "scope_models", "scope_runs", "scope_contracts")
SOURCES = ("events", "oracle", "clause_taxonomy", *SCOPE_TABLES)
MACROS = "macros.sql"

# The folders of SQL models: the platform's own (`sql/common`) first, then each suite's (`register_sql_folder`).
# A folder holds `macros.sql` (loaded before any model), `intermediate/` and `marts/`; staging models are
# generated from the registered event types (`staging.py`). A folder registered with a scope (`SuiteScope`) has
# its marts computed in that suite's own scope; the others share the clause suite's (corpus, runs, models, judge).


@dataclass(frozen=True)
class SqlPackage:
    name: str
    folder: Path
    scope: SuiteScope | None = None


_PACKAGES: list[SqlPackage] = [SqlPackage("common", SQL_DIR / "common")]


def register_sql_folder(folder: Path, name: str | None = None, scope: SuiteScope | None = None) -> None:
    folder = Path(folder)
    if all(p.folder != folder for p in _PACKAGES):
        _PACKAGES.append(SqlPackage(name or folder.name, folder, scope))


def sql_packages() -> list[SqlPackage]:
    return list(_PACKAGES)


@dataclass(frozen=True)
class SqlModel:
    name: str
    layer: str
    sql: str
    depends_on: tuple[str, ...]
    description: str
    package: str = ""  # the package it comes from (`common`, a suite's), empty for generated staging


def _staging_models() -> list[SqlModel]:
    return [SqlModel(kind.staging, "staging", staging_sql(kind), ("events",), staging_description(kind))
            for kind in registered_kinds()]


def sql_models(layers: tuple[str, ...] = LAYERS, packages: set[str] | None = None) -> list[SqlModel]:
    """The SQL models of the given layers (and packages), in dependency order: generated staging, then every
    package's models."""
    models: dict[str, SqlModel] = {m.name: m for m in _staging_models()}
    for package in _PACKAGES:
        for layer in LAYERS[1:]:
            for path in sorted((package.folder / layer).glob("*.sql")):
                text = path.read_text()
                deps = tuple(d.strip() for m in _DEPENDS.findall(text) for d in m.split(",") if d.strip())
                comment = [ln[2:].strip() for ln in text.splitlines()
                           if ln.startswith("--") and not _DEPENDS.match(ln)]
                if path.stem in models:
                    raise ValueError(f"two SQL models are named {path.stem} ({path} and {models[path.stem].package})")
                models[path.stem] = SqlModel(path.stem, layer, text, deps, " ".join(comment), package.name)
    order = TopologicalSorter({name: set(m.depends_on) - set(SOURCES) - _scope_tables() for name, m in models.items()})
    return [models[name] for name in order.static_order()
            if models[name].layer in layers and (packages is None or models[name].package in packages)]


def _scope_tables() -> set[str]:
    return {t for p in _PACKAGES if p.scope is not None for t in p.scope.tables}


def macros_sql() -> str:
    """Every folder's macros, the platform's first (later folders may use earlier macros)."""
    return "\n".join((p.folder / MACROS).read_text() for p in _PACKAGES if (p.folder / MACROS).exists())


def connect(path: Path | None = None, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection that never draws a progress bar into the user's terminal."""
    con = duckdb.connect(str(path) if path else ":memory:", read_only=read_only)
    con.execute("set enable_progress_bar = false")
    return con


def fingerprint(home: Home) -> str:
    digest = hashlib.sha256()
    # Commits append to a stream's manifest log and are folded into manifest.json when a writer closes: both
    # count, so a report read while a partition is writing sees what is committed so far.
    for manifest in sorted([*home.events.root.glob("*/manifest.json"), *home.events.root.glob("*/manifest.log")]):
        digest.update(manifest.parent.name.encode() + manifest.name.encode() + manifest.read_bytes())
    for oracle in sorted(home.corpora_dir.glob("*/oracle.parquet")):
        digest.update(oracle.parent.name.encode())
    digest.update((macros_sql() + "".join(m.sql for m in sql_models())).encode())
    digest.update(primary_judge(home).encode())
    return digest.hexdigest()


@contextmanager
def _locked(home: Home) -> Iterator[None]:
    home.ensure()
    with (home.root / "warehouse.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _load_sources(con: duckdb.DuckDBPyConnection, home: Home, streams: list[str] | None = None) -> None:
    """Load events (all, or only the given streams'), every stored corpus's oracle and the taxonomy."""
    # Only committed segments, each checked against its manifest first (one-line DamagedLogError if not).
    files = [str(p) for p in home.events.segments(streams, home.corpora_dir)]
    if files:
        con.execute("create or replace table events as select * from read_parquet(?, union_by_name = true)",
                    [files])
    else:
        empty = pa.Table.from_pylist([], schema=SCHEMA)  # noqa: F841 - read by DuckDB's replacement scan
        con.execute("create or replace table events as select * from empty")
    oracles = sorted(home.corpora_dir.glob("*/oracle.parquet"))
    if oracles:
        con.execute("""create or replace table oracle as
            select regexp_extract(filename, '([^/]+)/oracle\\.parquet$', 1) as corpus_id,
                   contract_id, clause_type, category, present
            from read_parquet(?, filename = true)""", [[str(p) for p in oracles]])
    else:
        con.execute("""create or replace table oracle (corpus_id varchar, contract_id varchar,
                       clause_type varchar, category varchar, present boolean)""")
    taxonomy = pa.Table.from_pylist(  # noqa: F841 - read by DuckDB's replacement scan
        [{"clause_type": c, "category": str(CATEGORY_OF[c]), "position": i} for i, c in enumerate(CLAUSE_TYPES)])
    con.execute("create or replace table clause_taxonomy as select * from taxonomy")


def build_warehouse(home: Home, *, force: bool = False) -> bool:
    """Rebuild sources and SQL models from the events; returns False when already up to date."""
    with _locked(home):
        # Check what the results rest on even when nothing changed since the last build (hashes of unchanged
        # files are cached), so damage made since is never read silently.
        home.events.segments(corpora_dir=home.corpora_dir)
        current = fingerprint(home)
        con = connect(home.warehouse_path)
        try:
            if not force:
                con.execute("create table if not exists _build (fingerprint varchar)")
                row = con.execute("select fingerprint from _build").fetchone()
                if row is not None and row[0] == current:
                    return False
            _load_sources(con, home)
            apply_models(con, ("staging", "intermediate"))
            key = apply_scope(con, ScopeRequest(judge=primary_judge(home)))
            apply_models(con, ("marts",), packages=_shared_scope())
            for package in _PACKAGES:
                if package.scope is not None:
                    apply_suite_scope(con, package.scope, SuiteScopeRequest(suite=package.name), primary_judge(home))
                    apply_models(con, ("marts",), packages={package.name})
            con.execute("create or replace table _scope_key as select ? as key", [key])
            con.execute("create or replace table _build as select ? as fingerprint", [current])
            return True
        finally:
            con.close()


def _shared_scope() -> set[str]:
    """The packages whose marts are computed in the clause suite's scope."""
    return {p.name for p in _PACKAGES if p.scope is None}


def apply_models(con: duckdb.DuckDBPyConnection, layers: tuple[str, ...] = LAYERS, temp: bool = False,
                 packages: set[str] | None = None) -> None:
    kind = "temp table" if temp else "table"
    if not temp:
        con.execute(macros_sql())
    for model in sql_models(layers=layers, packages=packages):
        con.execute(f"create or replace {kind} {model.name} as {model.sql}")


def partition_connection(home: Home, streams: list[str], judge: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory warehouse over just some streams (one partition), for partition-level checks, in the scope
    of the active corpus."""
    con = connect()
    _load_sources(con, home, [CORPUS_STREAM, *streams])
    apply_models(con, ("staging", "intermediate"))
    apply_scope(con, ScopeRequest(judge=judge or primary_judge(home)))
    apply_models(con, ("marts",), packages=_shared_scope())
    return con


@contextmanager
def read_warehouse(home: Home, request: ScopeRequest | SuiteScopeRequest | None = None
                   ) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to an up-to-date warehouse; with a scope request, its marts are computed
    for that scope (as temporary tables over the stored layers)."""
    build_warehouse(home)
    con = connect(home.warehouse_path, read_only=True)
    try:
        if isinstance(request, SuiteScopeRequest):
            package = next((p for p in _PACKAGES if p.name == request.suite and p.scope is not None), None)
            if package is None or package.scope is None:
                raise ScopeError(f"suite {request.suite!r} has no scope of its own")
            apply_suite_scope(con, package.scope, request, primary_judge(home), temp=True)
            apply_models(con, ("marts",), temp=True, packages={package.name})
        elif request is not None:
            key = apply_scope(con, request.model_copy(update={"judge": request.judge or primary_judge(home)}),
                              temp=True)
            stored = con.execute("select key from _scope_key").fetchone()
            if stored is not None and stored[0] == key:  # the default scope: its marts are stored already
                for table in SCOPE_TABLES:
                    con.execute(f"drop table temp.{table}")
            else:
                apply_models(con, ("marts",), temp=True, packages=_shared_scope())
        yield con
    finally:
        con.close()
