"""Recall, precision, F1 and F2 are written once, as SQL macros (sql/common/macros.sql); Python has DuckDB run the
same text (lhl_platform/stats/rates.py). The two agree on every count, nulls included; a change to a macro's text
is a change to the Python figures, and the bootstrap's resampled recall is the macro's."""

from __future__ import annotations

import itertools

import duckdb
import numpy as np
import pytest

from lhl_platform.scrub.categories import CATEGORY_KEYS
from lhl_platform.scrub.scoring import cluster_recall_intervals
from lhl_platform.stats import rates
from lhl_platform.warehouse.build import macros_sql

COUNTS = range(4)


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(macros_sql())  # what the warehouse loads before any model
    return con


def test_the_python_rates_are_the_warehouse_macros_on_every_small_count(con: duckdb.DuckDBPyConnection) -> None:
    assert rates.MACROS.read_text() in macros_sql()  # Python reads the very file the warehouse loads
    for tp, fp, fn in itertools.product(COUNTS, COUNTS, COUNTS):
        sql = con.execute("select recall_rate(?, ?), precision_rate(?, ?), f1_score(?, ?, ?)",
                          [tp, fn, tp, fp, tp, fp, fn]).fetchone()
        assert sql == (rates.recall_rate(tp, fn), rates.precision_rate(tp, fp), rates.f1_score(tp, fp, fn))
    for p, r in itertools.product((0.0, 0.25, 1 / 3, 1.0), repeat=2):
        (sql_f2,) = con.execute("select f2_score(?::double, ?::double)", [p, r]).fetchone()
        assert rates.f2_score(p, r) == sql_f2  # the same expression, so the same bits
    assert rates.recall_rate(0, 0) is None and rates.f2_score(0.0, 0.0) == 0.0 and rates.ratio(1, None) is None
    assert rates.recall_rate(np.int64(1), np.int64(3)) == 0.25  # numpy counts are plain numbers to DuckDB


def test_the_array_recall_is_the_scalar_macro_elementwise() -> None:
    tp = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 1.0]])
    fn = np.array([[0.0, 1.0, 0.0], [1.0, 2.0, 3.0]])
    found = rates.recall_rates(tp, fn)
    assert found.shape == tp.shape and np.isnan(found[0, 0])
    expected = [[rates.recall_rate(int(t), int(f)) for t, f in zip(a, b, strict=True)] for a, b in zip(tp, fn,
                                                                                                     strict=True)]
    assert [[None if np.isnan(v) else v for v in row] for row in found.tolist()] == expected


def test_a_macro_text_is_what_python_runs() -> None:
    text = rates.MACROS.read_text().replace("ratio(tp, tp + fn)", "ratio(tp, tp + fn + 1)")
    changed = rates.Rates(text)
    assert changed.value("recall_rate", 1, 1) == pytest.approx(1 / 3) and rates.recall_rate(1, 1) == 0.5
    assert changed.column("recall_rate", np.array([1.0]), np.array([1.0]))[0] == pytest.approx(1 / 3)
    with pytest.raises(LookupError, match="f2_score"):
        rates.Rates(text.replace("macro f2_score", "macro f2_other"))


def test_the_bootstrap_recall_is_the_macros() -> None:
    # One contract, drawn every time: each resample's recall is the macro's on its counts (1 of 3 found).
    category = CATEGORY_KEYS[0]
    (_, first, *_) = cluster_recall_intervals([("c1", category, 3, 1)], ["c1"], resamples=20)
    assert first.category == category and first.low == first.high == rates.recall_rate(1, 2)
