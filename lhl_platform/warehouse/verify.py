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


def _differs(con: duckdb.DuckDBPyConnection, stored: str, rebuilt: str) -> str:
    """Why the stored table is not the rebuilt one ('' when equal)."""
    have = con.execute(f"describe {stored}").fetchall()
    want = con.execute(f"describe {rebuilt}").fetchall()
    if [(r[0], r[1]) for r in have] != [(r[0], r[1]) for r in want]:
        return "its columns differ"
    n_extra, n_lacking = _unmatched(con, stored, rebuilt, [_qi(str(r[0])) for r in want])
    if (n_extra or n_lacking) and any(str(r[1]) in _FLOATS for r in want):
        # A sum of floating-point numbers depends on the order it adds them in, which differs between a build that
        # reads its Parquet files partition by partition and one made from the events in their order: compared to
        # nine decimals. (Any change to the stored bytes is caught by the digest anyway.)
        rounded = [f"round({_qi(str(r[0]))}, 9)" if str(r[1]) in _FLOATS else _qi(str(r[0])) for r in want]
        n_extra, n_lacking = _unmatched(con, stored, rebuilt, rounded)
    if n_extra or n_lacking:
        return f"{n_extra} stored row(s) are not in the rebuilt table, {n_lacking} rebuilt row(s) are not stored"
    return ""


_FLOATS = ("DOUBLE", "FLOAT")


def _unmatched(con: duckdb.DuckDBPyConnection, stored: str, rebuilt: str, columns: list[str]) -> tuple[int, int]:
    cols = ", ".join(columns)
    extra = con.execute(f"select count(*) from (select {cols} from {stored} except all "
                        f"select {cols} from {rebuilt})").fetchone()
    lacking = con.execute(f"select count(*) from (select {cols} from {rebuilt} except all "
                          f"select {cols} from {stored})").fetchone()
    return (int(extra[0]) if extra else 0), (int(lacking[0]) if lacking else 0)


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
    for table, what in compared_tables():
        report.tables += 1
        if table not in stored:
            report.problems.append(f"{what} {table} is missing from the stored build")
            continue
        try:
            problem = _differs(con, f"_lhl_stored.main.{_qi(table)}", f"memory.main.{_qi(table)}")
        except duckdb.Error as exc:
            problem = f"cannot be compared ({' '.join(str(exc).split())[:200]})"
        if problem:
            report.problems.append(f"{what} {table} differs from the events: {problem}")
