"""The audit recovers the declared error profiles of the simulated extractors (calibration tools).

The whole pipeline runs: events -> rubric judge -> SQL models -> report. Tolerances are about four
binomial standard errors plus a small allowance for the offline judge's own misreadings.
"""

import math

import pytest

from lhl_platform.clause.audit import audit_partition
from lhl_platform.clause.extraction.simulated import PROFILES
from lhl_platform.clause.report.build import build_report
from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import load_demo_corpus
from lhl_platform.corpus.store import save_corpus
from lhl_platform.domain.models import ModelSpec
from lhl_platform.home import Home
from lhl_platform.registry import add_model

JUDGE_SLACK = 0.04


def _audit(tmp_path, corpus, runs):
    home = Home.resolve(tmp_path / "home").ensure()
    save_corpus(home, corpus, "test")
    for name in ("inventor", "omitter"):
        add_model(home, ModelSpec(name=f"sim-{name}", provider="offline", model_id=f"simulated:{name}"))
        for run in runs:
            audit_partition(home, f"sim-{name}", run)
    return build_report(home, resamples=500)


def _tolerance(p, n):
    return 4 * math.sqrt(max(p * (1 - p), 0.01) / max(n, 1)) + JUDGE_SLACK


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory):
    return _audit(tmp_path_factory.mktemp("recovery"), load_demo_corpus(), range(1, 21))


@pytest.mark.parametrize("name", ["inventor", "omitter"])
def test_typed_rates_are_recovered_per_category(demo_report, name):
    declared = PROFILES[name]
    for row in (r for r in demo_report.typed_profiles if r.model == f"sim-{name}"):
        expected = declared.categories[row.category]
        if row.far is not None:  # the demo's factual clauses are present in every contract: no FAR
            assert abs(row.far - expected.far) < _tolerance(expected.far, row.fp + row.tn), (row.category, "far")
        assert abs(row.frr - expected.frr) < _tolerance(expected.frr, row.fn + row.tp), (row.category, "frr")
        assert abs(row.hal_tp - expected.hal_tp) < _tolerance(expected.hal_tp, row.tp), (row.category, "hal_tp")


def test_direction_is_recovered_with_opposite_signs_and_matched_halluc(demo_report):
    rows = {r.model: r for r in demo_report.leaderboard}
    inventor, omitter = rows["sim-inventor"], rows["sim-omitter"]
    for row, profile in ((inventor, PROFILES["inventor"]), (omitter, PROFILES["omitter"])):
        assert abs(row.rdi - profile.declared_rdi) < _tolerance(0.25, row.contradicted)
    assert inventor.rdi_ci_low > 0 > omitter.rdi_ci_high
    assert abs(inventor.hal_tp - omitter.hal_tp) < 0.06


def test_cuad_scale_recovery(tmp_path, cuad_dir):
    report = _audit(tmp_path, load_master_layout(cuad_dir), [1])
    rows = {r.model: r for r in report.leaderboard}
    for name in ("inventor", "omitter"):
        row = rows[f"sim-{name}"]
        assert row.n == 20_910 and row.missing_rows == 0
        assert abs(row.rdi - PROFILES[name].declared_rdi) < 0.05
    assert rows["sim-inventor"].rdi_ci_low > 0.1 and rows["sim-omitter"].rdi_ci_high < -0.1
    assert abs(rows["sim-inventor"].hal_tp - rows["sim-omitter"].hal_tp) < 0.03
