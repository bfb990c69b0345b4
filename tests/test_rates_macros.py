"""Recall, precision, F1 and F2 are written once, as SQL macros (sql/common/macros.sql); Python evaluates the same
text (lhl_platform/stats/rates.py). The two agree on every count, nulls included, and a change to a macro's text
is a change to the Python function."""

from __future__ import annotations

import itertools

import duckdb
import pytest

from lhl_platform.stats import rates
from lhl_platform.warehouse.build import macros_sql

COUNTS = range(4)


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(macros_sql())
    return con


def test_the_python_rates_are_the_macros_on_every_small_count(con: duckdb.DuckDBPyConnection) -> None:
    for tp, fp, fn in itertools.product(COUNTS, COUNTS, COUNTS):
        sql = con.execute("select recall_rate(?, ?), precision_rate(?, ?), f1_score(?, ?, ?)",
                          [tp, fn, tp, fp, tp, fp, fn]).fetchone()
        assert sql == (rates.recall_rate(tp, fn), rates.precision_rate(tp, fp), rates.f1_score(tp, fp, fn))
    for p, r in itertools.product((0.0, 0.25, 1 / 3, 1.0), repeat=2):
        (sql_f2,) = con.execute("select f2_score(?::double, ?::double)", [p, r]).fetchone()
        assert rates.f2_score(p, r) == sql_f2  # the same expression, so the same bits
    assert rates.recall_rate(0, 0) is None and rates.f2_score(0.0, 0.0) == 0.0 and rates.ratio(1, None) is None


def test_a_macro_text_is_what_python_runs() -> None:
    text = rates.MACROS.read_text().replace("ratio(tp, tp + fn)", "ratio(tp, tp + fn + 1)")
    table = rates._read(text)
    assert table["recall_rate"](1, 1) == pytest.approx(1 / 3) and rates.recall_rate(1, 1) == 0.5
    with pytest.raises(LookupError, match="f2_score"):
        rates._read(text.replace("macro f2_score", "macro f2_other"))
    with pytest.raises(ValueError, match="not an expression"):
        rates._read(text.replace("ratio(tp, tp + fn + 1)", "ratio(tp, tp ** fn)"))["recall_rate"](1, 1)
