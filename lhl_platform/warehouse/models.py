"""The SQL models: where they come from, what they read, and how the warehouse keeps and refreshes each one.

The platform's own folder (`sql/common`) comes first, then each suite's (`register_sql_folder`). A folder holds
`macros.sql` (loaded before any model) and one `.sql` file per model in `intermediate/`, `parts/` and `marts/`;
staging models are generated from the registered event types (`staging.py`). A folder registered with a scope
(`SuiteScope`) has its parts and marts computed in that suite's own scope; the others in the shared one (the scope
declared `shared`: `scope`, `scope_models`, ...).

Header comments of a model file:

- `-- depends_on: a, b` names the models and sources it reads (the build order).
- `-- partition_by: model, run` says the rows with given values of these columns are computed only from input
  rows with the same values in whichever of these columns an input has (an input with none of them is read
  whole). A refresh then recomputes only the values whose inputs changed (`refresh.py`). Without it a model is
  recomputed whole when any input changed, so it must stay small.
- `-- stored_as: parquet` keeps a partitioned model as one Parquet file per partition (for models that grow with
  the instances); `-- stored_as: view` computes it when read. The default is a table in the build's DuckDB file.

Every other comment line is the model's description (its Dagster asset shows it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from graphlib import TopologicalSorter
from pathlib import Path

from lhl_platform.events.kinds import EventKind, registered_kinds
from lhl_platform.events.model import EVENT_COLUMNS
from lhl_platform.registries import active
from lhl_platform.warehouse.scope import ScopeError, SuiteScope
from lhl_platform.warehouse.sources import SourceTable
from lhl_platform.warehouse.staging import META_COLUMNS, staging_description, staging_sql
from sql import SQL_DIR

_HEADER = re.compile(r"^--\s*(depends_on|partition_by|stored_as):\s*(.+)$", re.MULTILINE)
LAYERS = ("staging", "intermediate", "parts", "marts")
# The layers computed within a scope: `parts` are the scoped partial counts the marts roll up (kept so that a
# refresh recounts only what changed; not results of their own, so they have no row class and are not published).
SCOPED = ("parts", "marts")
# The shared scope's tables (`SuiteScope.shared`), read by the packages without a scope of their own.
SCOPE_TABLES = ("scope", "scope_models", "scope_runs", "scope_contracts")
EVENTS = "events"  # the one source table of every build: the committed events
# Its columns when no segment is committed yet (`seq` is a segment's one integer column).
EVENT_TABLE = ", ".join(f"{name} {'bigint' if name == 'seq' else 'varchar'}" for name in EVENT_COLUMNS)
MACROS = "macros.sql"
STORAGE = ("table", "parquet", "view")


@dataclass(frozen=True)
class SqlPackage:
    name: str
    folder: Path
    scope: SuiteScope | None = None
    sources: tuple[SourceTable, ...] = ()  # the tables beside the events its models read


COMMON = SqlPackage("common", SQL_DIR / "common")


def _packages() -> list[SqlPackage]:
    """The platform's own package, then the active catalog's (`lhl_platform.registries`)."""
    return [COMMON, *active().packages]


def register_sql_folder(folder: Path, name: str | None = None, scope: SuiteScope | None = None,
                        sources: tuple[SourceTable, ...] = ()) -> None:
    folder = Path(folder)
    if all(p.folder != folder for p in _packages()):
        taken = {t.name for t in source_tables()} | {EVENTS}
        clash = sorted(taken & {t.name for t in sources})
        if clash:
            raise ValueError(f"source table {', '.join(clash)} of {name or folder.name} is declared already")
        active().packages.append(SqlPackage(name or folder.name, folder, scope, tuple(sources)))


def source_tables() -> list[SourceTable]:
    """The source tables every registered package declares (beside the events)."""
    return [table for package in _packages() for table in package.sources]


def source_names() -> set[str]:
    """The tables a model may read that no model computes: the events and the declared source tables."""
    return {EVENTS, *(table.name for table in source_tables())}


def sql_packages() -> list[SqlPackage]:
    return list(_packages())


@dataclass(frozen=True)
class SqlModel:
    name: str
    layer: str
    sql: str
    depends_on: tuple[str, ...]
    description: str
    package: str = ""  # the package it comes from (`common`, a suite's), empty for generated staging
    partition_by: tuple[str, ...] = ()
    stored_as: str = "table"

    @property
    def ordered(self) -> bool:
        return _final_order_by(self.sql) is not None


def _final_order_by(sql: str) -> list[str] | None:
    """The leading names of the statement's own (outermost, last) ORDER BY terms, or None without one."""
    text = re.sub(r"--[^\n]*", "", sql).lower()
    depth, last = 0, -1
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and text.startswith("order by", i) and (i == 0 or not text[i - 1].isalnum()):
            last = i
    if last < 0:
        return None
    terms, depth, start = [], 0, last + len("order by")
    for i in range(start, len(text) + 1):
        ch = text[i] if i < len(text) else ","
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            terms.append(text[start:i].strip())
            start = i + 1
    return [t.split()[0].split("(")[0].split(".")[-1].strip('"') for t in terms if t]


def _check(model: SqlModel, path: Path) -> None:
    if model.stored_as not in STORAGE:
        raise ValueError(f"{path}: stored_as must be one of {', '.join(STORAGE)}, not {model.stored_as!r}")
    if model.stored_as == "parquet" and not model.partition_by:
        raise ValueError(f"{path}: a model stored as parquet needs partition_by")
    order = _final_order_by(model.sql)
    if model.partition_by and order is not None and order[:len(model.partition_by)] != list(model.partition_by):
        # A refresh keeps each partition's rows in the model's order and the partitions in key order.
        raise ValueError(f"{path}: a partitioned model's ORDER BY must start with its partition_by columns "
                         f"({', '.join(model.partition_by)})")


_STAGED: dict[EventKind, SqlModel] = {}


def _staging_models() -> list[SqlModel]:
    """One per registered event type, generated once per type (every read fingerprints the SQL)."""
    out = []
    for kind in registered_kinds():
        if kind not in _STAGED:
            _STAGED[kind] = SqlModel(kind.staging, "staging", staging_sql(kind), ("events",),
                                     staging_description(kind), partition_by=("stream",), stored_as="parquet")
        out.append(_STAGED[kind])
    return out


_PARSED: dict[tuple[Path, str, str, str], SqlModel] = {}


def _load(path: Path, layer: str, package: str) -> SqlModel:
    text = path.read_text()
    known = _PARSED.get((path, layer, package, text))
    if known is not None:
        return known
    headers: dict[str, list[str]] = {}
    for key, value in _HEADER.findall(text):
        headers.setdefault(key, []).extend(v.strip() for v in value.split(",") if v.strip())
    comment = [ln[2:].strip() for ln in text.splitlines() if ln.startswith("--") and not _HEADER.match(ln)]
    stored = headers.get("stored_as", ["table"])
    model = SqlModel(path.stem, layer, text, tuple(headers.get("depends_on", [])), " ".join(comment), package,
                     tuple(headers.get("partition_by", [])), stored[0] if len(stored) == 1 else ",".join(stored))
    _check(model, path)
    _PARSED[(path, layer, package, text)] = model
    return model


def sql_models(layers: tuple[str, ...] = LAYERS, packages: set[str] | None = None) -> list[SqlModel]:
    """The SQL models of the given layers (and packages), in dependency order: generated staging, then every
    package's models."""
    models: dict[str, SqlModel] = {m.name: m for m in _staging_models()}
    for package in _packages():
        for layer in LAYERS[1:]:
            for path in sorted((package.folder / layer).glob("*.sql")):
                if path.stem in models:
                    raise ValueError(f"two SQL models are named {path.stem} ({path} and {models[path.stem].package})")
                models[path.stem] = _load(path, layer, package.name)
    order = TopologicalSorter({name: set(m.depends_on) - source_names() - set(SCOPE_TABLES) - scope_tables()
                               for name, m in models.items()})
    return [models[name] for name in order.static_order()
            if models[name].layer in layers and (packages is None or models[name].package in packages)]


def scope_tables() -> set[str]:
    """Every declared scope's tables (`scope`, `<suite>_scope`, ...)."""
    return {t for scope, _ in scopes() for t in scope.tables}


def scopes() -> list[tuple[SuiteScope, set[str]]]:
    """Each declared scope, the shared one first, with the packages whose parts and marts are computed in it (the
    shared one's: its own and those without a scope of their own)."""
    packages = _packages()
    declared = sorted(dict.fromkeys(p.scope for p in packages if p.scope is not None), key=lambda s: not s.shared)
    return [(scope, {p.name for p in packages if p.scope == scope or (scope.shared and p.scope is None)})
            for scope in declared]


def scope_of(suite: str | None) -> SuiteScope:
    """The scope a suite's figures are computed in (None: the shared one), or one line saying it has none."""
    for scope, packages in scopes():
        if suite in packages or (not suite and scope.shared):
            return scope
    raise ScopeError(f"suite {suite!r} has no scope of its own" if suite else "no suite declares the shared scope")


def shared_scope() -> set[str]:
    """The packages whose parts and marts are computed in the shared scope."""
    return next((packages for scope, packages in scopes() if scope.shared), set())


def macros_sql() -> str:
    """Every folder's macros, the platform's first (later folders may use earlier macros)."""
    return "\n".join((p.folder / MACROS).read_text() for p in _packages() if (p.folder / MACROS).exists())


__all__ = ["EVENTS", "EVENT_TABLE", "LAYERS", "META_COLUMNS", "SCOPED", "SCOPE_TABLES", "SqlModel", "SqlPackage",
           "macros_sql", "register_sql_folder", "scope_of", "scope_tables", "scopes", "shared_scope", "source_names",
           "source_tables", "sql_models", "sql_packages"]
