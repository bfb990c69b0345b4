"""Source tables: what the SQL models read beside the events, declared by the suite whose models read them.

A source table is loaded into every build, whole (they are small): from Parquet files in the home (a corpus's
answer key) or from rows the code holds (a taxonomy). The files it reads enter the build's fingerprint, so a new
file makes the next read rebuild; rows held in code change with the code, which the SQL digest covers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb

    from lhl_platform.home import Home


@dataclass(frozen=True)
class SourceTable:
    """Table `name` with `columns` (DDL: `a varchar, b boolean`). Either `files(home)` lists the Parquet files it
    reads, each row selected by `select` (a query over `read_parquet(?, filename = true)`, the files in its one
    parameter) and empty when there are none; or `rows()` gives its rows, in the columns' order."""

    name: str
    columns: str
    files: Callable[[Home], list[Path]] | None = None
    select: str = ""
    rows: Callable[[], Sequence[tuple[Any, ...]]] | None = None

    def __post_init__(self) -> None:
        if (self.files is None) == (self.rows is None) or (self.files is not None) != bool(self.select):
            raise ValueError(f"source table {self.name}: give either files and select, or rows")

    def fingerprint(self, home: Home) -> list[str]:
        """What a build of it depends on beside the code: the files it reads, by their place in the home."""
        if self.files is None:
            return []
        return [f"{self.name}:{path.relative_to(home.root)}" for path in self.files(home)]

    def load(self, con: duckdb.DuckDBPyConnection, home: Home, table: str, *, kind: str = "table") -> None:
        """Create `table` (a `kind`: table, temp table) holding this source's rows now."""
        paths = self.files(home) if self.files is not None else []
        if paths:
            con.execute(f"create or replace {kind} {table} as {self.select}", [[str(p) for p in paths]])
            return
        con.execute(f"create or replace {kind} {table} ({self.columns})")
        rows = self.rows() if self.rows is not None else []
        if rows:
            marks = ", ".join("?" * len(rows[0]))
            con.executemany(f"insert into {table} values ({marks})", [list(row) for row in rows])


__all__ = ["SourceTable"]
