"""Drift: a model whose newest run no longer matches its earlier runs fails the no_drift check; a provider
serving another model version is reported; failing checks reach the alert hook (log line or webhook)."""

import logging

import duckdb
import pytest
from dagster import DagsterInstance

from lhl_platform.clause.importer import import_outcomes
from lhl_platform.clause.monitoring import drift, served_model_changes
from lhl_platform.home import Home
from lhl_platform.warehouse.build import read_warehouse
from orchestration.definitions import defs
from orchestration.launch import QUIET
from resources import LhlHome
from resources.alerts import Alert, LogHook, WebhookHook, hook_for
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


def test_a_handful_of_contradictions_is_never_called_drift(tmp_path):
    # Three contradictions per side that flip from missing to extra: the intervals part, but the sample is tiny.
    rows = []
    for run, mismatch in ((1, "missing_condition"), (2, "missing_condition"), (3, "extra_condition")):
        rows += [outcome("tiny", run, f"c{i}", "Non-Compete", "TP", "contradicted", mismatch) for i in range(3)]
    home = Home.resolve(tmp_path / "h").ensure()
    import_outcomes(home, write_outcomes(tmp_path / "o.csv", rows))
    with read_warehouse(home) as con:
        rows_ = drift(con, resamples=200)
    rdi = next(r for r in rows_ if r.metric == "rdi" and r.category is None)
    assert (rdi.baseline, rdi.newest) == (-1.0, 1.0) and not rdi.drifted


def test_drift_check_fails_in_dagster_and_reaches_the_webhook(tmp_path, receiver):
    url, bodies = receiver
    home = _home(tmp_path)
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("metrics").execute_in_process(
            instance=instance, resources={"lhl": LhlHome(path=str(home.root), alerts=url)}, run_config=QUIET,
            raise_on_error=False)
    (check,) = [e for e in result.get_asset_check_evaluations() if e.check_name == "no_drift"]
    assert not check.passed and "shifting" in check.description and "steady" not in check.description
    (sent,) = [b for b in bodies if b["check"] == "no_drift"]
    assert sent["asset"] == "model_drift" and sent["partition"] is None and "shifting" in sent["summary"]
    assert sent["figures"]["comparisons"] >= 1 and "shifting" in sent["figures"]["drifted"]
    assert sent["severity"] == "ERROR"
    assert {b["check"] for b in bodies} <= {"no_drift", "no_change_detected", "comparable_scope", "rows_complete",
                                            "every_tp_judged", "labels_in_domain", "no_duplicate_instances",
                                            "great_expectations_suite"}
    (served,) = [e for e in result.get_asset_check_evaluations() if e.check_name == "same_served_model"]
    assert served.passed  # and says why there is nothing to compare:
    assert "no model.call event records the served model" in served.description


def test_a_failing_partition_check_names_its_partition_in_the_alert(tmp_path, receiver):
    from checks.results import to_check_result
    from lhl_platform.quality.checks import CheckOutcome

    url, bodies = receiver
    failing = CheckOutcome(name="rows_complete", passed=False, description="d", summary="3 missing rows: c1",
                           metadata={"missing_rows": 3, "contracts": ["c1"]})
    result = to_check_result(failing, named=True, lhl=LhlHome(path=str(tmp_path), alerts=url), asset="extractions",
                             partition="gpt|2")
    assert not result.passed
    (body,) = bodies
    assert (body["check"], body["asset"], body["partition"]) == ("rows_complete", "extractions", "gpt|2")
    assert body["figures"] == {"missing_rows": 3, "contracts": "['c1']"} and body["summary"] == "3 missing rows: c1"
    passing = failing.model_copy(update={"passed": True})
    to_check_result(passing, lhl=LhlHome(path=str(tmp_path), alerts=url), asset="extractions")
    assert len(bodies) == 1  # only failures are sent


def test_the_default_hook_is_a_log_line_and_a_dead_webhook_never_breaks_the_run(caplog):
    alert = Alert(check="no_drift", asset="model_drift", partition=None, summary="gpt drifted", figures={"n": 1})
    assert isinstance(hook_for(None), LogHook) and isinstance(hook_for("log"), LogHook)
    with caplog.at_level(logging.WARNING, logger="lhl.alerts"):
        hook_for("log").send(alert)
        WebhookHook("http://127.0.0.1:9/nothing-listens", timeout_s=1).send(alert)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "lhl alert: check no_drift failed on model_drift: gpt drifted"
    assert any("could not deliver" in line for line in lines)
    assert hasattr(hook_for("resources.alerts:LogHook"), "send")  # a hook of your own, by module:attribute
    with pytest.raises(ValueError):
        hook_for("not a hook")


def test_a_provider_serving_another_model_version_is_reported():
    con = duckdb.connect()
    con.execute("""create table int_calls as select 'extraction' as stage, true as completed, *
                   from (values
        ('gpt', 1, 'gpt-5.2-2026-01-01'), ('gpt', 2, 'gpt-5.2-2026-01-01'), ('gpt', 3, 'gpt-5.2-2026-06-01'),
        ('claude', 1, 'claude-x'), ('claude', 2, 'claude-x'), ('old', 1, null), ('old', 2, null))
                   t(model, run, served_model)""")
    recorded, changes = served_model_changes(con)
    assert recorded == 5
    assert changes == [{"model": "gpt", "newest_run": 3, "newest": ["gpt-5.2-2026-06-01"],
                        "earlier": ["gpt-5.2-2026-01-01"]}]
