"""Composite ranks: average ranks for ties, weights, null handling."""

import pytest

from lhl_platform.clause.importer import import_outcomes
from lhl_platform.clause.report.build import build_report
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from tests.helpers import outcome, write_outcomes


def _model_rows(model, kinds):
    """One contract; the first clause types get the given outcomes, the rest TN."""
    rows = []
    for i, clause in enumerate(CLAUSE_TYPES):
        kind = kinds[i] if i < len(kinds) else "TN"
        verdict = ("supported", "none") if kind == "TP" else ("", "")
        rows.append(outcome(model, 1, "c1", clause, kind, *verdict))
    return rows


def _composite(tmp_path, models):
    home = Home.resolve(tmp_path / "h").ensure()
    rows = [r for name, kinds in models.items() for r in _model_rows(name, kinds)]
    import_outcomes(home, write_outcomes(tmp_path / "o.csv", rows))
    report = build_report(home, resamples=50)
    return {(c.scheme, c.model): (c.score, c.rank) for c in report.composite}, report


def test_identical_models_tie_at_the_average_rank(tmp_path):
    scores, _ = _composite(tmp_path, {"a": ["TP", "FP"], "b": ["TP", "FP"]})
    assert scores[("equal", "a")] == (1.5, 1) and scores[("equal", "b")] == (1.5, 1)


def test_weighted_mean_rank_per_scheme(tmp_path):
    # a: better FAR/Acc/HalGen (no FP); b: better FRR/JEq (no FN).
    scores, report = _composite(tmp_path, {"a": ["TP", "FN"], "b": ["TP", "TP", "FP"]})
    lb = {r.model: r for r in report.leaderboard}
    assert lb["a"].far < lb["b"].far and lb["a"].frr > lb["b"].frr
    # metric ranks for a: FAR 1, FRR 2, Acc 1 (40/41 vs 40/41 tie -> 1.5), HalGen 1, JEq 2
    assert lb["a"].acc == lb["b"].acc
    assert scores[("equal", "a")][0] == pytest.approx((1 + 2 + 1.5 + 1 + 2) / 5)
    assert scores[("fp_heavy", "a")][0] == pytest.approx((2 * 1 + 2 + 1.5 + 2 * 1 + 2) / 7)
    assert scores[("recall_heavy", "b")][0] == pytest.approx((2 + 2 * 1 + 1.5 + 2 + 2 * 1) / 7)
    assert scores[("halluc_only", "a")] == (1.0, 1)
    assert scores[("detection_only", "b")][0] == pytest.approx((2 + 1 + 1.5) / 3)


def test_metric_null_for_any_model_is_dropped_from_every_scheme(tmp_path):
    # b has no TP and no FP: HalGen is null for b, so HalGen leaves every scheme; halluc_only has no weight left.
    scores, report = _composite(tmp_path, {"a": ["TP", "FP"], "b": ["FN"]})
    assert {r.model: r.hal_gen for r in report.leaderboard}["b"] is None
    assert scores[("halluc_only", "a")] == (None, None)
    # equal: FAR, FRR, Acc, JEq remain. a: FAR 2, FRR 1, Acc 1.5 (tied 40/41), JEq 1 ; b: 1, 2, 1.5, 2
    assert scores[("equal", "a")][0] == pytest.approx(5.5 / 4)
    assert scores[("equal", "b")][0] == pytest.approx(6.5 / 4)
    assert scores[("fp_heavy", "a")][0] == pytest.approx((2 * 2 + 1 + 1.5 + 1) / 5)
