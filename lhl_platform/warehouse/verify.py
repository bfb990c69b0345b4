"""The projection checked like the events: the stored build against the marts rebuilt from the events.

`verify_projection` computes the whole projection in memory from the (verified) events and corpora, the way
`memory_warehouse` does with no stored state at all, and compares every table of the current build with it, row
for row (as multisets: a table's row order is not part of its content, except where a mart orders its rows). It
also checks the build's files against the digest recorded at its build. Whatever differs is named: the build
record or file, and each table (mart, part, intermediate or staging) whose rows differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb

from lhl_platform.domain.errors import flat
from lhl_platform.home import Home
from lhl_platform.warehouse.build import fingerprint, memory_warehouse
from lhl_platform.warehouse.models import scopes, sql_models
from lhl_platform.warehouse.store import Store, WarehouseAltered, WarehouseInvalid


@dataclass
class ProjectionReport:
    build: int | None = None
    current: bool = True  # built from the events and SQL there are now (only then are its rows compared)
    tables: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _qi(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def compared_tables() -> list[tuple[str, str]]:
    """(table, what it is) for every table a build stores: sources, staging, intermediate, parts, marts."""
    tables = [("oracle", "source"), ("clause_taxonomy", "source")]
    tables += [(t, "scope table") for scope, _ in scopes() for t in scope.tables]
    layer = {"staging": "staging table", "intermediate": "intermediate table", "parts": "part", "marts": "mart"}
    return tables + [(m.name, layer[m.layer]) for m in sql_models()]


_FLOATS = ("DOUBLE", "FLOAT")
Columns = list[tuple[str, str]]  # (name, type) in table order


def _columns(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], Columns]:
    """Every table's and view's columns, by (database, table), read in one query."""
    out: dict[tuple[str, str], Columns] = {}
    for database, table, column, kind in con.execute(
            "select table_catalog, table_name, column_name, data_type from information_schema.columns "
            "where table_schema = 'main' order by table_catalog, table_name, ordinal_position").fetchall():
        out.setdefault((str(database), str(table)), []).append((str(column), str(kind)))
    return out


def _imbalance(table: str, columns: Columns, rounded: bool) -> str:
    """One row (table, extra, lacking): the stored rows not in the rebuilt table and the rebuilt rows not stored,
    counted as multisets (each distinct row's copies on one side minus the other's, as EXCEPT ALL counts them)."""
    values = [f"round({_qi(c)}, 9)" if rounded and kind in _FLOATS else _qi(c) for c, kind in columns]
    named = ", ".join(f"{v} as _c{i}" for i, v in enumerate(values))
    keys = ", ".join(f"_c{i}" for i in range(len(values)))
    stored, rebuilt = f"_lhl_stored.main.{_qi(table)}", f"memory.main.{_qi(table)}"
    literal = "'" + table.replace("'", "''") + "'"
    return (f"select {literal} as t, coalesce(sum(d) filter (where d > 0), 0) as extra, "
            f"coalesce(-sum(d) filter (where d < 0), 0) as lacking from (select sum(_side) as d from ("
            f"select {named}, 1 as _side from {stored} union all select {named}, -1 as _side from {rebuilt}) "
            f"group by {keys} having sum(_side) <> 0)")


def _unmatched(con: duckdb.DuckDBPyConnection, tables: dict[str, Columns],
               rounded: bool = False) -> dict[str, tuple[int, int] | str]:
    """Per table, (extra, lacking) rows, or why it cannot be compared. All tables in one query (a query per table
    cost more in DuckDB's per-statement work than the comparisons themselves); one that fails is retried table by
    table, so that only the table that cannot be compared is named."""
    if not tables:
        return {}
    try:
        rows = con.execute(" union all ".join(_imbalance(t, c, rounded) for t, c in tables.items())).fetchall()
        return {str(t): (int(extra), int(lacking)) for t, extra, lacking in rows}
    except duckdb.Error:
        if len(tables) == 1:
            raise
    out: dict[str, tuple[int, int] | str] = {}
    for table, columns in tables.items():
        try:
            out.update(_unmatched(con, {table: columns}, rounded))
        except duckdb.Error as exc:
            out[table] = f"cannot be compared ({flat(exc)[:200]})"
    return out


def _differences(con: duckdb.DuckDBPyConnection, tables: dict[str, Columns]) -> dict[str, str]:
    """Why each stored table is not the rebuilt one (tables that are equal are left out)."""
    found = _unmatched(con, tables)
    # A sum of floating-point numbers depends on the order it adds them in, which differs between a build that
    # reads its Parquet files partition by partition and one made from the events in their order: a table with
    # floating-point columns that differs is compared again to nine decimals. (Any change to the stored bytes is
    # caught by the digest anyway.)
    floats = {t: tables[t] for t, n in found.items()
              if isinstance(n, tuple) and any(n) and any(kind in _FLOATS for _, kind in tables[t])}
    found.update(_unmatched(con, floats, rounded=True))
    out = {}
    for table, n in found.items():
        if isinstance(n, str):
            out[table] = n
        elif any(n):
            out[table] = f"{n[0]} stored row(s) are not in the rebuilt table, {n[1]} rebuilt row(s) are not stored"
    return out


def verify_projection(home: Home) -> tuple[str | None, list[str]]:
    """The projection check of `lhl verify` (`events.verify.ProjectionCheck`): what was compared and what differs."""
    report = compare_projection(home)
    if report.build is None:
        return None, report.problems
    if not report.current:
        return f"build {report.build} predates the latest events or SQL (its files match their digest; the next " \
               "read refreshes it)", report.problems
    return f"build {report.build} matches the events ({report.tables} tables compared)", report.problems


def compare_projection(home: Home) -> ProjectionReport:
    """Compare the current stored build with the projection rebuilt from the events (which must verify first)."""
    report = ProjectionReport()
    store = Store(home.warehouse_path)
    try:
        record = store.current()
    except WarehouseInvalid as exc:
        report.problems.append(str(exc))
        return report
    if record is None:
        return report  # nothing stored: nothing to differ (a read builds it from the events)
    report.build = record.build
    try:
        store.check(record)
    except WarehouseAltered as exc:
        report.problems.append(str(exc).split("; ")[0])
    except WarehouseInvalid as exc:
        report.problems.append(str(exc))
        return report
    if record.fingerprint != fingerprint(home):
        # Built from fewer events (or other SQL) than there are now: its rows differ for that reason alone. Its
        # files match their digest, so the next read refreshes it from them.
        report.current = False
        return report
    with store.reading(record) as present:
        if not present:
            return report  # replaced meanwhile by a newer build
        con = memory_warehouse(home)
        try:
            # The stored build's views read its Parquet files relative to the warehouse folder.
            con.execute("set file_search_path = " + "'" + str(store.root).replace("'", "''") + "'")
            catalog = str(store.root / record.catalog).replace("'", "''")
            con.execute(f"attach '{catalog}' as _lhl_stored (read_only)")
            _compare(con, report)
        finally:
            con.close()
    return report


def _compare(con: duckdb.DuckDBPyConnection, report: ProjectionReport) -> None:
    stored = {str(r[0]) for r in con.execute(
        "select table_name from duckdb_tables() where database_name = '_lhl_stored' union all "
        "select view_name from duckdb_views() where database_name = '_lhl_stored'").fetchall()}
    columns = _columns(con)
    problems: dict[str, str] = {}
    comparable: dict[str, Columns] = {}
    tables = compared_tables()
    for table, _ in tables:
        report.tables += 1
        have, want = columns.get(("_lhl_stored", table)), columns.get(("memory", table))
        if table not in stored:
            problems[table] = "is missing from the stored build"
        elif have is None:
            problems[table] = "differs from the events: cannot be compared (its columns cannot be read)"
        elif have != want:
            problems[table] = "differs from the events: its columns differ"
        else:
            comparable[table] = have
    problems.update({t: f"differs from the events: {why}" for t, why in _differences(con, comparable).items()})
    report.problems += [f"{what} {table} {problems[table]}" for table, what in tables if table in problems]
