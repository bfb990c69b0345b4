"""A refresh: bring a build of the warehouse up to date with the events, reading only what changed.

Event segments are immutable and every build records which ones it has staged, so a refresh stages only the
segments committed since (each stream's staging rows are one Parquet file, rewritten with the new rows). From
there every table carries its *delta* (the rows that changed, old and new versions, or "everything") down the
models in dependency order:

- a partitioned model (`-- partition_by:`) recomputes the partitions the deltas of its inputs name: an input's
  changed rows name partitions through the partition columns they have. The inputs are read filtered to those
  partitions, and the model's delta is the difference between its old and new rows there;
- any other model is recomputed whole when an input changed (they are small: they count, they do not list);
- a delta that names no partition column of a reader (a new corpus, another primary judge, a new contract in
  scope) makes the reader recompute everything.

The scope tables are resolved again on every refresh and take part like any other input, so a new run or model
touches only its own partitions. A fresh build (`lhl warehouse rebuild`, or no usable build to start from) runs
the same code with everything changed, so it stores exactly what a refresh does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lhl_platform.corpus.store import CORPUS_STREAM
from lhl_platform.events.integrity import file_sha256
from lhl_platform.events.kinds import registered_kinds
from lhl_platform.warehouse.models import EVENT_TABLE, SCOPED, SqlModel, macros_sql, scopes, source_tables, sql_models
from lhl_platform.warehouse.scope import ScopeRequest, SuiteScope, apply_scope, scope_key
from lhl_platform.warehouse.store import CHUNKS, Store

if TYPE_CHECKING:
    import duckdb  # for annotations only: the connection is opened elsewhere, and importing duckdb costs ~0.1 s

    from lhl_platform.home import Home

_ROW_GROUP = 20_000  # rows per Parquet row group
_LISTED = 64  # partition values listed literally in a filter, up to this many
_BATCH_EVENTS = 1_000_000  # events staged at once (a fresh build of a long history goes in batches of streams)
POS = "_lhl_pos"  # a partitioned table's row position within its partition (its model's order)


def _qi(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _ql(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class RestageNeeded(RuntimeError):
    """The build staged segments the log no longer lists: only a fresh build is safe."""


@dataclass(frozen=True)
class Delta:
    """What changed in a table: everything, or the old and new versions of the changed rows (in `table`)."""

    every: bool = False
    table: str = ""
    columns: frozenset[str] = frozenset()


EVERY = Delta(every=True)


@dataclass(frozen=True)
class Term:
    """Part of what a partitioned model recomputes: rows whose `columns` take a value tuple found in `table`."""

    columns: tuple[str, ...]
    table: str


@dataclass
class Projection:
    """One refresh of the build open on `con` (a copy of the previous build, or an empty file when `fresh`)."""

    con: duckdb.DuckDBPyConnection
    store: Store
    build: int
    fresh: bool
    primary_judge: str
    deltas: dict[str, Delta] = field(default_factory=dict)
    db: str = ""
    _names: int = 0
    _files: int = 0
    _columns: dict[str, dict[str, str]] = field(default_factory=dict)
    _values: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)
    _stored: set[str] | None = None
    staged: int = 0  # segments this refresh staged (the ones its build had not)

    def __post_init__(self) -> None:
        self.db = str(self.one("select current_database()"))
        self.models = {m.name: m for m in sql_models()}
        readers: dict[str, list[SqlModel]] = {}
        for model in self.models.values():
            for name in model.depends_on:
                readers.setdefault(name, []).append(model)
        self.readers = readers

    # --- small helpers -------------------------------------------------------------------------------------

    def one(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        row = self.con.execute(sql, list(params or [])).fetchone()
        return row[0] if row else None

    def main(self, name: str) -> str:
        return f"{_qi(self.db)}.main.{_qi(name)}"

    def temp(self, prefix: str) -> str:
        self._names += 1
        return f"_lhl_{prefix}_{self._names}"

    def columns(self, relation: str) -> dict[str, str]:
        """Column name -> type of a table or view (a stored one unless `relation` is a temp name)."""
        return {str(r[0]): str(r[1]) for r in self.con.execute(f"describe {relation}").fetchall()}

    def stored_columns(self, name: str) -> dict[str, str]:
        if name not in self._columns:
            self._columns[name] = {c: t for c, t in self.columns(self.main(name)).items() if c != POS}
        return self._columns[name]

    def exists(self, name: str) -> bool:
        if self._stored is None:
            self._stored = {str(r[0]) for r in self.con.execute(
                "select table_name from duckdb_tables() where database_name = ? and schema_name = 'main' union all "
                "select view_name from duckdb_views() where database_name = ? and schema_name = 'main'",
                [self.db, self.db]).fetchall()}
        return name in self._stored

    def created(self, name: str) -> None:
        if self._stored is not None:
            self._stored.add(name)
        self._columns.pop(name, None)

    # --- the refresh ---------------------------------------------------------------------------------------

    def run(self, segments: list[Path], home: Home) -> None:
        """Stage the new segments, then every model in order: the intermediate ones, then each scope's tables and
        the parts and marts computed in it (the shared scope first)."""
        self.con.execute(macros_sql())
        if self.fresh:
            self.con.execute("create table _lhl_segments (stream varchar, segment varchar)")
            self.con.execute("create table _lhl_chunks (tbl varchar, key varchar, file varchar, sha256 varchar, "
                             "rows bigint)")
            self.con.execute("create table _lhl_build (name varchar, value varchar)")
            self.con.execute("create table _scope_key (suite varchar, key varchar)")
        self.stage(segments)
        self.sources(home)
        for model in sql_models(("intermediate",)):
            self.update(model)
        # Committed once here: a query over a table this transaction has changed merges the changes on every
        # read, and the scoped models read the intermediate tables many times over.
        self.con.execute("commit")
        self.con.execute("begin")
        self.con.execute("delete from _scope_key")
        for scope, packages in scopes():
            key = self.default_scope(scope)
            self.con.execute("insert into _scope_key values (?, ?)", [scope.suite, key])
            for model in sql_models(SCOPED, packages=packages):
                self.update(model)

    # --- staging -------------------------------------------------------------------------------------------

    def stage(self, segments: list[Path]) -> None:
        staged = {(str(s), str(n)) for s, n in self.con.execute("select stream, segment from _lhl_segments").fetchall()}
        listed = {(p.parent.name, p.name) for p in segments}
        if staged - listed:
            raise RestageNeeded("the build staged segments the event log no longer lists")
        new = [p for p in segments if (p.parent.name, p.name) not in staged]
        self.staged = len(new)
        kinds = registered_kinds()
        changed: dict[str, list[str]] = {k.staging: [] for k in kinds}
        for batch in _batches(new):
            self.load_events(batch)
            for kind in kinds:
                delta = self.temp("delta")
                if self.count(f"create temp table {delta} as {self.models[kind.staging].sql}"):
                    changed[kind.staging].append(delta)
                else:
                    self.con.execute(f"drop table {delta}")
            self.con.execute("insert into _lhl_segments select * from (values "
                             + ", ".join(f"({_ql(p.parent.name)}, {_ql(p.name)})" for p in batch) + ")")
        if not new:
            self.load_events([])
        for kind in kinds:
            name = kind.staging
            parts = changed[name]
            if not self.fresh and not parts:
                continue
            if parts:
                delta = parts[0] if len(parts) == 1 else self.temp("delta")
                if len(parts) > 1:
                    self.con.execute(f"create temp table {delta} as "
                                     + " union all ".join(f"select * from {p}" for p in parts))
            else:
                delta = self.temp("delta")
                self.con.execute(f"create temp table {delta} as {self.models[name].sql}")  # empty: the columns
            self.store_staging(name, delta)
            self.deltas[name] = EVERY if self.fresh else Delta(table=delta, columns=frozenset(self.columns(delta)))
        self.con.execute("drop table if exists temp.main.events")

    def load_events(self, paths: list[Path]) -> None:
        self.con.execute("drop table if exists temp.main.events")
        if paths:
            self.con.execute("create temp table events as select * from read_parquet(?, union_by_name = true)",
                             [[str(p) for p in paths]])
        else:
            self.con.execute(f"create temp table events ({EVENT_TABLE})")

    def store_staging(self, name: str, delta: str) -> None:
        """Each stream's rows of this staging table in one Parquet file: the old file's rows and the new ones."""
        if self.fresh:
            self.con.execute(f"create table {self.main('_lhl_e_' + name)} as select * from {delta} limit 0")
            self.created("_lhl_e_" + name)
        files = self.chunk_files(name)
        streams = [r[0] for r in self.con.execute(f"select distinct stream from {delta} order by 1").fetchall()]
        # Grouped by what its readers select partitions by (then in stream order), so their reads skip row groups.
        columns = self.columns(delta)
        order = ", ".join(_qi(c) for c in [*self.partition_columns(name), "seq"] if c in columns)
        for stream in streams:
            old = files.get((stream,))
            rows = f"select * from {delta} where stream = {_ql(stream)}"
            if old is not None:
                rows = f"select * from read_parquet({_ql(old)}) union all {rows}"
            self.replace_chunk(name, (stream,), f"select * from ({rows}) order by {order}")
        self.parquet_view(name)

    # --- sources -------------------------------------------------------------------------------------------

    def sources(self, home: Home) -> None:
        """Every declared source table, read whole again (they are small); its delta is what differs."""
        for source in source_tables():
            staged = self.temp(source.name)
            source.load(self.con, home, staged, kind="temp table")
            self.replace_small(source.name, f"select * from {staged}")

    def default_scope(self, scope: SuiteScope) -> str:
        """The scope's tables for its default request, stored like any other input; returns its key."""
        apply_scope(self.con, scope, ScopeRequest(suite=scope.suite), self.primary_judge, temp=True)
        key = scope_key(self.con, scope)
        for table in scope.tables:
            self.replace_small(table, f"select * from temp.main.{_qi(table)}")
            self.con.execute(f"drop table temp.main.{_qi(table)}")
        return key

    # --- models --------------------------------------------------------------------------------------------

    def predicate(self, model: SqlModel) -> list[Term] | None | bool:
        """What to recompute: True (everything), a list of terms, or None (nothing changed)."""
        if self.fresh:
            return True
        terms: list[Term] = []
        for name in model.depends_on:
            delta = self.deltas.get(name)
            if delta is None:
                continue
            if delta.every or not model.partition_by:
                return True
            shared = tuple(c for c in model.partition_by if c in delta.columns)
            if not shared:
                return True
            terms.append(Term(shared, delta.table))
        return _merge(terms) or None

    def update(self, model: SqlModel) -> None:
        wanted = self.predicate(model)
        if wanted is None:
            return
        name = model.name
        if model.stored_as == "view":
            if self.fresh:
                self.con.execute(f"create view {self.main(name)} as {model.sql}")
                self.created(name)
            self.deltas[name] = EVERY
            return
        if not model.partition_by:
            self.replace_small(name, model.sql)
            return
        terms = wanted if isinstance(wanted, list) else None
        shadows = self.shadow_inputs(model, terms) if terms else []
        new = self.temp("new")
        try:
            self.con.execute(f"create temp table {new} as {model.sql}")
        finally:
            for shadow in shadows:
                self.con.execute(f"drop view temp.main.{_qi(shadow)}")
        if model.stored_as == "parquet":
            self.update_parquet(model, new, terms)
        else:
            self.update_partitioned(model, new, terms)
            if name in self.deltas and any(not r.partition_by for r in self.readers.get(name, [])):
                # Whole models read it next, all of it: committed, it reads as stored rows, not as this
                # transaction's changes merged into them.
                self.con.execute("commit")
                self.con.execute("begin")

    def shadow_inputs(self, model: SqlModel, terms: list[Term]) -> list[str]:
        """Each input the model reads through a partition column, as a temp view of just those partitions (named
        like the input, so the model's SQL reads it)."""
        shadows = []
        for name in dict.fromkeys(model.depends_on):
            if name == "events" or not self.exists(name):
                continue
            where = self.filter_sql(terms, self.stored_columns(name))
            if where is None:
                continue
            stored = self.models.get(name)
            if stored is not None and stored.stored_as == "parquet":
                source = self.pruned(stored, terms)
            elif stored is not None and stored.partition_by:
                source = f"(select * exclude ({POS}) from {self.main('_lhl_t_' + name)})"
            else:
                source = self.main(name)
            self.con.execute(f"create temp view {_qi(name)} as select * from {source} where {where}")
            shadows.append(name)
        return shadows

    def filter_sql(self, terms: list[Term], columns: dict[str, str]) -> str | None:
        """The rows of a relation with these columns that the terms may need; None: it must be read whole."""
        parts = []
        for term in terms:
            shared = [c for c in term.columns if c in columns]
            if not shared:
                return None
            pack = ", ".join(f"{_ql(c)}: {_qi(c)}" for c in shared)
            cast = ", ".join(f"{_ql(c)}: {_qi(c)}::{columns[c]}" for c in shared)
            exact = f"{{{pack}}} in (select distinct {{{cast}}} from {term.table})"
            # Plain value lists as well, which a Parquet scan can check against each row group's statistics.
            values = self.values(term)
            if len(values) <= _LISTED:
                index = {c: i for i, c in enumerate(term.columns)}
                lists = [f"{_qi(c)} in ({', '.join(sorted({_literal(v[index[c]]) for v in values}))})"
                         for c in shared if all(v[index[c]] is not None for v in values)]
                exact = " and ".join([*lists, exact])
            parts.append(exact)
        return " or ".join(f"({p})" for p in parts)

    def pruned(self, model: SqlModel, terms: list[Term]) -> str:
        """A parquet model's files that may hold rows the terms name (by the partition values of each file)."""
        keep = []
        files = self.chunk_files(model.name)
        values = [(t.columns, self.values(t)) for t in terms]
        for key, file in sorted(files.items(), key=lambda kv: _sort_key(kv[0])):
            named = dict(zip(model.partition_by, key, strict=True))
            for cols, tuples in values:
                shared = [i for i, c in enumerate(cols) if c in named]
                if not shared or any(all(named[cols[i]] == t[i] for i in shared) for t in tuples):
                    keep.append(file)
                    break
        if not keep:
            return f"(select * from {self.main('_lhl_e_' + model.name)})"
        return f"(select {self.cast_list(model.name)} from read_parquet([{', '.join(map(_ql, keep))}]))"

    def values(self, term: Term) -> list[tuple[Any, ...]]:
        key = f"{term.table}|{term.columns}"
        if key not in self._values:
            cols = ", ".join(_qi(c) for c in term.columns)
            self._values[key] = [tuple(r) for r in self.con.execute(
                f"select distinct {cols} from {term.table}").fetchall()]
        return self._values[key]

    # --- whole tables --------------------------------------------------------------------------------------

    def partition_columns(self, name: str) -> list[str]:
        """The columns the readers of a table recompute partitions by, in the order they name them."""
        return list(dict.fromkeys(c for reader in self.readers.get(name, []) for c in reader.partition_by))

    def diff_wanted(self, name: str) -> bool:
        """Whether a partitioned model reads this table: it then needs to know which rows changed, if any."""
        return any(reader.partition_by for reader in self.readers.get(name, []))

    def replace_small(self, name: str, sql: str) -> None:
        """Store a recomputed whole table; its delta is what differs from the stored one (or just "changed", when
        only whole tables read it)."""
        target = self.main(name)
        if self.fresh or not self.exists(name) or not self.diff_wanted(name):
            self.con.execute(f"create or replace table {target} as {sql}")
            self.created(name)
            self.deltas[name] = EVERY
            return
        new = self.temp("new")
        self.con.execute(f"create temp table {new} as {sql}")
        if list(self.columns(new).items()) != list(self.stored_columns(name).items()):
            self.con.execute(f"create or replace table {target} as select * from {new}")
            self.created(name)
            self.deltas[name] = EVERY
            return
        delta = self.temp("delta")
        changed = self.count(f"create temp table {delta} as (select * from {new} except all select * from {target}) "
                             f"union all (select * from {target} except all select * from {new})")
        if not changed:
            self.con.execute(f"drop table {delta}")
            return
        self.con.execute(f"create or replace table {target} as select * from {new}")
        self.deltas[name] = Delta(table=delta, columns=frozenset(self.columns(delta)))

    def count(self, sql: str) -> int:
        """Run a statement that reports a row count (CREATE TABLE AS, INSERT, COPY) and return it."""
        row = self.con.execute(sql).fetchone()
        return int(row[0]) if row else 0

    # --- partitioned tables (in the build's file) ----------------------------------------------------------

    def update_partitioned(self, model: SqlModel, new: str, terms: list[Term] | None) -> None:
        name = model.name
        table = self.main("_lhl_t_" + name)
        if terms is None:
            self.con.execute(f"create or replace table {table} as select *, rowid as {POS} from {new}")
            self.created("_lhl_t_" + name)
            order = ", ".join([*map(_qi, model.partition_by), POS]) if model.ordered else ""
            # a view's own names are left unqualified: a build file is renamed and copied under other names
            self.con.execute(f"create or replace view {self.main(name)} as select * exclude ({POS}) from "
                             f"{_qi('_lhl_t_' + name)}" + (f" order by {order}" if order else ""))
            self.created(name)
            self.deltas[name] = EVERY
            return
        changed = self.partition_delta(model, new, terms, table)
        if changed is None:
            return
        fresh_rows, delta, where = changed
        self.con.execute(f"delete from {table} where {where}")
        self.con.execute(f"insert into {table} select * from {fresh_rows}")
        self.deltas[name] = delta

    def partition_delta(self, model: SqlModel, new: str, terms: list[Term], stored: str
                        ) -> tuple[str, Delta, str] | None:
        """The recomputed rows of the partitions the terms name, and the rows by which they differ from the
        stored ones (None when they do not): (fresh rows with their position, the delta, the partitions' filter)."""
        columns = self.stored_columns(model.name)
        where = self.filter_sql(terms, {c: columns[c] for c in model.partition_by})
        assert where is not None
        cols = ", ".join(map(_qi, columns))
        old, fresh_rows, delta = self.temp("old"), self.temp("fresh"), self.temp("delta")
        self.con.execute(f"create temp table {old} as select {cols} from {stored} where {where}")
        self.con.execute(f"create temp table {fresh_rows} as select {cols}, rowid as {POS} from {new} where {where}")
        changed = self.count(f"create temp table {delta} as "
                             f"(select {cols} from {fresh_rows} except all select {cols} from {old}) union all "
                             f"(select {cols} from {old} except all select {cols} from {fresh_rows})")
        if not changed:
            self.con.execute(f"drop table {delta}")
            return None
        return fresh_rows, Delta(table=delta, columns=frozenset(columns)), where

    # --- partitioned tables in Parquet files ---------------------------------------------------------------

    def chunk_files(self, table: str) -> dict[tuple[Any, ...], str]:
        return {tuple(json.loads(k)): str(f) for k, f in self.con.execute(
            "select key, file from _lhl_chunks where tbl = ?", [table]).fetchall()}

    def replace_chunk(self, table: str, key: tuple[Any, ...], rows_sql: str) -> None:
        """Write one partition's rows as a new Parquet file (none when it has no rows) and list it."""
        self._files += 1
        relative = f"{CHUNKS}/{table}/{self.build:08d}-{self._files:06d}.parquet"
        path = self.store.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        encoded = json.dumps(list(key), default=str)
        self.con.execute("delete from _lhl_chunks where tbl = ? and key = ?", [table, encoded])
        # Row groups small enough that a read of some models' rows skips the others' by their statistics.
        count = self.count(f"copy ({self.write_list(table, rows_sql)}) to {_ql(str(path))} "
                           f"(format parquet, compression zstd, row_group_size {_ROW_GROUP})")
        if count == 0:
            path.unlink(missing_ok=True)
            return
        self.con.execute("insert into _lhl_chunks values (?, ?, ?, ?, ?)",
                         [table, encoded, relative, file_sha256(path), count])

    def write_list(self, table: str, rows_sql: str) -> str:
        """Parquet has no 128-bit integers: such columns are written as decimals (and read back as they were)."""
        wide = [c for c, t in self.empty_columns(table).items() if t in ("HUGEINT", "UHUGEINT")]
        if not wide:
            return rows_sql
        return (f"select * replace ({', '.join(f'{_qi(c)}::decimal(38, 0) as {_qi(c)}' for c in wide)}) "
                f"from ({rows_sql})")

    def empty_columns(self, table: str) -> dict[str, str]:
        return self.stored_columns("_lhl_e_" + table)

    def cast_list(self, table: str) -> str:
        return ", ".join(f"{_qi(c)}::{t} as {_qi(c)}" if t in ("HUGEINT", "UHUGEINT") else _qi(c)
                         for c, t in self.empty_columns(table).items())

    def parquet_view(self, table: str) -> None:
        """The table as a view over its files, in partition order (rows within a file in the model's order)."""
        files = [f for _, f in sorted(self.chunk_files(table).items(), key=lambda kv: _sort_key(kv[0]))]
        body = (f"select {self.cast_list(table)} from read_parquet([{', '.join(map(_ql, files))}])" if files
                else f"select * from {_qi('_lhl_e_' + table)}")
        self.con.execute(f"create or replace view {self.main(table)} as {body}")
        self.created(table)

    def update_parquet(self, model: SqlModel, new: str, terms: list[Term] | None) -> None:
        name = model.name
        keys = ", ".join(map(_qi, model.partition_by))
        if terms is None:
            if self.fresh or not self.exists("_lhl_e_" + name):
                self.con.execute(f"create or replace table {self.main('_lhl_e_' + name)} as "
                                 f"select * from {new} limit 0")
                self.created("_lhl_e_" + name)
            old = set(self.chunk_files(name))
            rows = self.temp("rows")
            self.con.execute(f"create temp table {rows} as select *, rowid as {POS} from {new}")
            found = {tuple(r) for r in self.con.execute(f"select distinct {keys} from {rows}").fetchall()}
            self.write_partitions(model, rows, sorted(old | found, key=_sort_key))
            self.parquet_view(name)
            self.deltas[name] = EVERY
            return
        changed = self.partition_delta(model, new, terms, self.pruned(model, terms))
        if changed is None:
            return
        fresh_rows, delta, _ = changed
        touched = {tuple(r) for r in self.con.execute(f"select distinct {keys} from {delta.table}").fetchall()}
        self.write_partitions(model, fresh_rows, sorted(touched, key=_sort_key))
        self.parquet_view(name)
        self.deltas[name] = delta

    def write_partitions(self, model: SqlModel, rows: str, keys: list[tuple[Any, ...]]) -> None:
        """One file per partition, its rows in the model's order (or, without one, sorted: what compresses best
        and does not depend on how the rows were computed)."""
        cols = self.columns(rows)
        names = ", ".join(_qi(c) for c in cols if c != POS)
        if len(keys) > 4:  # sorted, each partition's rows are found by the row groups' statistics
            ordered = self.temp("sorted")
            self.con.execute(f"create temp table {ordered} as select * from {rows} "
                             f"order by {', '.join(map(_qi, model.partition_by))}, {POS}")
            rows = ordered
        order = POS if model.ordered else "all"
        for key in keys:
            condition = " and ".join(f"{_qi(c)} is not distinct from {_literal(v)}::{cols[c]}"
                                     for c, v in zip(model.partition_by, key, strict=True))
            self.replace_chunk(model.name, key, f"select {names} from {rows} where {condition} order by {order}")


def _literal(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return _ql(str(value))


def _sort_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    # SQL's default order: nulls last
    return tuple((v is None, v if v is not None else 0) for v in key)


def _merge(terms: list[Term]) -> list[Term]:
    """Terms over the same columns read as one (a union of their value tables)."""
    by_columns: dict[tuple[str, ...], list[str]] = {}
    for term in terms:
        by_columns.setdefault(term.columns, []).append(term.table)
    return [Term(cols, tables[0]) if len(tables) == 1 else _Union(cols, tables).term()
            for cols, tables in by_columns.items()]


@dataclass(frozen=True)
class _Union:
    columns: tuple[str, ...]
    tables: list[str]

    def term(self) -> Term:
        cols = ", ".join(map(_qi, self.columns))
        return Term(self.columns, "(" + " union all ".join(f"select {cols} from {t}" for t in self.tables) + ")")


def _batches(paths: list[Path]) -> Iterable[list[Path]]:
    """Segments grouped by stream into batches of about `_BATCH_EVENTS` events (a stream is never split)."""
    by_stream: dict[str, list[Path]] = {}
    for path in paths:
        by_stream.setdefault(path.parent.name, []).append(path)
    batch: list[Path] = []
    size = 0
    for stream_paths in by_stream.values():
        rows = sum(_rows(p) for p in stream_paths)
        if batch and size + rows > _BATCH_EVENTS:
            yield batch
            batch, size = [], 0
        batch.extend(stream_paths)
        size += rows
    if batch:
        yield batch


def _rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return int(pq.ParquetFile(path).metadata.num_rows)


__all__ = ["CORPUS_STREAM", "Delta", "Projection", "RestageNeeded"]
