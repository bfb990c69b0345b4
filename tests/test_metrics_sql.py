"""Every metric of docs/method.md against hand-computed values on small imported tables."""

import math

import pytest

from lhl_platform.clause.importer import import_outcomes
from lhl_platform.clause.report.build import build_report
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.warehouse.build import read_warehouse
from tests.helpers import outcome, write_outcomes

NUMERIC = "Cap On Liability"
TEMPORAL = "Agreement Date"
OBLIGATION = "Non-Compete"
FACTUAL = "Governing Law"


def _home(tmp_path, rows):
    home = Home.resolve(tmp_path / "home").ensure()
    import_outcomes(home, write_outcomes(tmp_path / "o.csv", rows))
    return home


def _full_contract(model, run, contract, overrides):
    """41 rows for one contract: TN everywhere except the given clause types."""
    return [overrides.get(c) or outcome(model, run, contract, c, "TN") for c in CLAUSE_TYPES]


def test_rates_match_hand_computed_values(tmp_path):
    rows = _full_contract("m", 1, "c1", {
        NUMERIC: outcome("m", 1, "c1", NUMERIC, "TP", "contradicted", "numeric"),
        OBLIGATION: outcome("m", 1, "c1", OBLIGATION, "TP", "contradicted", "missing_condition"),
        FACTUAL: outcome("m", 1, "c1", FACTUAL, "TP", "supported", "none"),
        TEMPORAL: outcome("m", 1, "c1", TEMPORAL, "FN"),
        "Exclusivity": outcome("m", 1, "c1", "Exclusivity", "FP"),
    })
    report = build_report(_home(tmp_path, rows))
    (lb,) = report.leaderboard
    # TP 3, FP 1, FN 1, TN 36; contradicted 2 (1 missing), supported 1
    assert (lb.tp, lb.fp, lb.fn, lb.tn, lb.n) == (3, 1, 1, 36, 41)
    assert lb.far == pytest.approx(1 / 37)
    assert lb.frr == pytest.approx(1 / 4)
    assert lb.acc == pytest.approx(39 / 41)
    assert lb.hal_tp == pytest.approx(2 / 3)
    assert lb.hal_gen == pytest.approx(3 / 4)
    assert lb.jeq == pytest.approx(1 / 4)
    assert lb.rdi == pytest.approx(-1 / 2)
    typed = {r.category: r for r in report.typed_profiles}
    assert typed["numeric"].hal_tp == 1.0 and typed["factual"].hal_tp == 0.0
    assert typed["temporal"].hal_tp is None  # no TP: zero denominator is null, never 0
    assert typed["temporal"].frr == 1.0
    gap = report.gaps[0]
    assert (gap.gap, gap.max_category, gap.min_category) == (1.0, "numeric", "factual")


def test_zero_denominators_are_null_not_zero(tmp_path):
    rows = _full_contract("m", 1, "c1", {})  # all TN: no TP, no FP, no FN, no contradictions
    (lb,) = build_report(_home(tmp_path, rows)).leaderboard
    assert lb.far == 0.0 and lb.acc == 1.0
    assert lb.frr is None and lb.hal_tp is None and lb.hal_gen is None and lb.jeq is None
    assert lb.rdi is None and lb.rdi_ci_low is None and lb.rdi_ci_high is None


def test_rdi_from_the_papers_figure_2_percentages(tmp_path):
    """gpt-5.2: 4.9% missing, 21.0% extra of contradictions -> RDI +0.161 (the paper's figure)."""
    rows = []
    for i in range(1000):
        mismatch = "missing_condition" if i < 49 else "extra_condition" if i < 49 + 210 else "scope"
        rows.append(outcome("gpt", 1, f"c{i:04d}", OBLIGATION, "TP", "contradicted", mismatch))
    report = build_report(_home(tmp_path, rows))
    (lb,) = report.leaderboard
    assert lb.rdi == pytest.approx(0.161)
    assert lb.rdi_ci_low < 0.161 < lb.rdi_ci_high
    assert (lb.n_missing_condition, lb.n_extra_condition, lb.contradicted) == (49, 210, 1000)


def test_missing_rows_are_counted_excluded_and_attributed(tmp_path):
    rows = _full_contract("m", 1, "c1", {}) + _full_contract("m", 2, "c1", {})
    rows += [r for r in _full_contract("m", 1, "c2", {}) if r["clause_type"] != NUMERIC]  # c2 misses one in run 1
    rows += _full_contract("m", 2, "c2", {})
    rows += [r for r in _full_contract("m", 1, "c3", {}) if r["clause_type"] not in (NUMERIC, FACTUAL)]
    rows += [r for r in _full_contract("m", 2, "c3", {}) if r["clause_type"] != TEMPORAL]
    home = _home(tmp_path, rows)
    report = build_report(home)
    (lb,) = report.leaderboard
    assert lb.missing_rows == 4
    assert lb.n == 6 * 41 - 4  # excluded from every denominator
    assert {(r.run, r.missing_rows) for r in report.per_run} == {(1, 3), (2, 1)}
    with read_warehouse(home) as con:
        rows = con.execute("select contract_id, persistent, missing_instances from missing_by_contract "
                           "order by contract_id").fetchall()
    assert rows == [("c2", False, 1), ("c3", True, 3)]


def test_per_run_and_pooled_agree(tmp_path):
    contradicted = outcome("m", 1, "c1", NUMERIC, "TP", "contradicted", "extra_condition")
    rows = _full_contract("m", 1, "c1", {NUMERIC: contradicted})
    rows += _full_contract("m", 2, "c1", {NUMERIC: outcome("m", 2, "c1", NUMERIC, "TP", "supported", "none")})
    home = _home(tmp_path, rows)
    report = build_report(home)
    assert [r.hal_tp for r in report.per_run] == [1.0, 0.0]
    assert report.leaderboard[0].hal_tp == 0.5 and report.leaderboard[0].runs == 2
    with read_warehouse(home) as con:
        mean, sd = con.execute("select hal_tp_mean, hal_tp_sd from run_summary").fetchone()
    assert mean == 0.5 and math.isclose(sd, math.sqrt(0.5))


def test_clause_type_profiles_exist_for_every_type(tmp_path):
    home = _home(tmp_path, _full_contract("m", 1, "c1", {}))
    with read_warehouse(home) as con:
        assert con.execute("select count(*) from clause_profiles").fetchone()[0] == 41
