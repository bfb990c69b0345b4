"""Drift: a model whose newest run no longer matches its earlier runs fails the no_drift check."""

from dagster import DagsterInstance, materialize

from assets.metrics import sql_model_assets
from assets.monitoring import model_drift
from lhl_platform.home import Home
from lhl_platform.importer import import_outcomes
from lhl_platform.monitoring import drift
from lhl_platform.warehouse.build import read_warehouse
from orchestration.launch import ALL_ASSETS, QUIET
from resources import LhlHome
from tests.helpers import outcome, write_outcomes


def _rows(model, run, contradicted_share, extra_share):
    rows = []
    for i in range(300):
        kind = i / 300
        if kind < contradicted_share:
            mismatch = "extra_condition" if kind < contradicted_share * extra_share else "missing_condition"
            rows.append(outcome(model, run, f"c{i:03d}", "Non-Compete", "TP", "contradicted", mismatch))
        else:
            rows.append(outcome(model, run, f"c{i:03d}", "Non-Compete", "TP", "supported", "none"))
    return rows


def _home(tmp_path):
    rows = []
    for run in (1, 2):
        rows += _rows("shifting", run, 0.3, 0.2) + _rows("steady", run, 0.3, 0.2)
    rows += _rows("shifting", 3, 0.7, 0.8) + _rows("steady", 3, 0.3, 0.2)
    home = Home.resolve(tmp_path / "h").ensure()
    import_outcomes(home, write_outcomes(tmp_path / "o.csv", rows))
    return home


def test_newest_run_is_compared_with_the_earlier_runs(tmp_path):
    with read_warehouse(_home(tmp_path)) as con:
        rows = drift(con, resamples=500)
    by = {(r.model, r.category, r.metric): r for r in rows}
    shifted = by[("shifting", None, "hal_tp")]
    assert (shifted.baseline_runs, shifted.newest_run) == (2, 3)
    assert shifted.baseline == 0.3 and shifted.newest == 0.7 and shifted.drifted
    assert by[("shifting", "obligation", "rdi")].drifted  # -0.6 -> +0.6
    assert not any(r.drifted for r in rows if r.model == "steady")


def test_drift_check_fails_in_dagster_naming_the_model(tmp_path):
    home = _home(tmp_path)
    with DagsterInstance.ephemeral() as instance:
        result = materialize(ALL_ASSETS, selection=[sql_model_assets, model_drift], instance=instance,
                             resources={"lhl": LhlHome(path=str(home.root))}, run_config=QUIET, raise_on_error=False)
    (check,) = [e for e in result.get_asset_check_evaluations() if e.check_name == "no_drift"]
    assert not check.passed and "shifting" in check.description and "steady" not in check.description
