"""The detection rates (recall, precision, F1, F2) in Python, computed by DuckDB from the SQL macros that define
them (`sql/common/macros.sql`): the marts and the Python scoring run the same text, and nothing here restates a
formula.

A private in-memory DuckDB connection loads the macros on first use. A scalar rate asks it for one value (each
distinct set of counts once: they repeat); `recall_rates` asks for a whole array at once (the bootstrap's
resamples). SQL's null is None, nan in an array.
"""

from __future__ import annotations

import threading
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import duckdb

MACROS = Path(__file__).resolve().parents[2] / "sql" / "common" / "macros.sql"
RATES = ("ratio", "recall_rate", "precision_rate", "f1_score", "f2_score")


class Rates:
    """The rate macros of one macros text, evaluated by DuckDB (one connection, used by one thread at a time)."""

    def __init__(self, text: str) -> None:
        import duckdb  # on use: a command that scores nothing does not load DuckDB for this

        self._con: duckdb.DuckDBPyConnection = duckdb.connect(config={"threads": 1})  # rows stay in order
        self._con.execute(text)
        self._lock = threading.Lock()
        found = {r[0] for r in self._con.execute("select function_name from duckdb_functions() "
                                                 "where function_type = 'macro'").fetchall()}
        missing = sorted(set(RATES) - found)
        if missing:
            raise LookupError(f"the macros define no {', '.join(missing)}")

    def value(self, macro: str, *args: Any) -> Any:
        """One macro applied to scalar arguments (None is null)."""
        plain = [a.item() if isinstance(a, np.generic) else a for a in args]  # DuckDB binds Python scalars only
        with self._lock:
            (row,) = self._con.execute(f"select {macro}({', '.join('?' * len(plain))})", plain).fetchall()
        return row[0]

    def column(self, macro: str, *columns: np.ndarray) -> np.ndarray:
        """One macro applied row by row to equal-shaped float arrays; null is nan; the result has their shape."""
        shape = columns[0].shape
        names = [f"a{i}" for i in range(len(columns))]
        with self._lock:
            self._con.register("rate_rows", {n: np.ascontiguousarray(c, dtype=float).ravel()
                                             for n, c in zip(names, columns, strict=True)})
            try:
                found = self._con.execute(f"select {macro}({', '.join(names)})::double as v from rate_rows"
                                          ).fetchnumpy()["v"]
            finally:
                self._con.unregister("rate_rows")
        values: np.ndarray = np.ma.filled(np.ma.asarray(found, dtype=float), np.nan)
        return values.reshape(shape)


@cache
def _rates() -> Rates:
    return Rates(MACROS.read_text())


@lru_cache(maxsize=65536)
def _value(macro: str, *args: Any) -> Any:
    return _rates().value(macro, *args)


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator; None with a zero or unknown denominator (`ratio`)."""
    value: float | None = _value("ratio", numerator, denominator)
    return value


def recall_rate(tp: int, fn: int) -> float | None:
    """TP / (TP + FN) (`recall_rate`)."""
    value: float | None = _value("recall_rate", tp, fn)
    return value


def precision_rate(tp: int, fp: int) -> float | None:
    """TP / (TP + FP) (`precision_rate`)."""
    value: float | None = _value("precision_rate", tp, fp)
    return value


def f1_score(tp: int, fp: int, fn: int) -> float | None:
    """2TP / (2TP + FP + FN), the harmonic mean of precision and recall (`f1_score`)."""
    value: float | None = _value("f1_score", tp, fp, fn)
    return value


def f2_score(precision: float, recall: float) -> float:
    """5PR / (4P + R); 0 when both are 0 (`f2_score`)."""
    value: float = _value("f2_score", float(precision), float(recall))
    return value


def recall_rates(tp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """`recall_rate` of every element of two equal-shaped arrays of counts; nan where it is null."""
    return _rates().column("recall_rate", tp, fn)
