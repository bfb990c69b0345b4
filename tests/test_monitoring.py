"""Monitoring the clause suite: a model whose newest round no longer matches its recent rounds fails the
no_change_detected check (the shared detection, docs/method.md section 12); a provider serving another model
version is reported; failing checks reach the alert hook (log line or webhook)."""

import logging

import duckdb
import pytest
from dagster import DagsterInstance

from lhl_platform.clause.importer import import_outcomes
from lhl_platform.clause.monitoring import served_model_changes
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.report.monitor import read_monitor_report
from lhl_platform.suites import get_suite
from orchestration.definitions import defs
from orchestration.launch import QUIET
from resources import LhlHome
from resources.alerts import Alert, LogHook, WebhookHook, hook_for
from tests.helpers import outcome, write_outcomes

CONTRACTS = 100


def _rows(model, run, contradicted_share, extra_share, contracts=CONTRACTS):
    rows = []
    for i in range(contracts):
        kind = i / contracts
        rows += [outcome(model, run, f"c{i:03d}", t, "TN") for t in CLAUSE_TYPES if t != "Non-Compete"]
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


def test_the_newest_round_is_compared_with_the_recent_rounds(tmp_path):
    report = read_monitor_report(_home(tmp_path), get_suite("clause"))
    changed = {(c.model, c.category, c.metric): c for c in report.changes}
    shifted = changed[("shifting", None, "hal_tp")]
    assert (shifted.baseline_runs, shifted.run) == ([1, 2], 3)
    assert shifted.from_value == 0.3 and shifted.to_value == 0.7 and shifted.p_adjusted < 0.01
    assert ("shifting", "obligation", "rdi") in changed  # -0.6 -> +0.6
    assert not any(c.model == "steady" for c in report.changes)
    (alert,) = report.alerts
    assert alert.run == 3 and "shifting" in alert.summary and "steady" not in alert.summary


def test_a_handful_of_contradictions_is_never_called_a_change(tmp_path):
    # Three contradictions per round that flip from missing to extra: the sample is tiny.
    rows = []
    for run, mismatch in ((1, "missing_condition"), (2, "missing_condition"), (3, "extra_condition")):
        for i in range(3):
            rows += [outcome("tiny", run, f"c{i}", t, "TN") for t in CLAUSE_TYPES if t != "Non-Compete"]
            rows.append(outcome("tiny", run, f"c{i}", "Non-Compete", "TP", "contradicted", mismatch))
    home = Home.resolve(tmp_path / "h").ensure()
    import_outcomes(home, write_outcomes(tmp_path / "o.csv", rows))
    report = read_monitor_report(home, get_suite("clause"))
    rdi = next(c for c in report.comparisons if c.metric == "rdi" and c.category is None and c.run == 3)
    assert (rdi.from_value, rdi.to_value) == (-1.0, 1.0) and rdi.untested == "few units" and not rdi.changed


def test_a_change_fails_the_check_in_dagster_and_reaches_the_webhook(tmp_path, receiver):
    url, bodies = receiver
    home = _home(tmp_path)
    with DagsterInstance.ephemeral() as instance:
        result = defs.resolve_job_def("metrics").execute_in_process(
            instance=instance, resources={"lhl": LhlHome(path=str(home.root), alerts=url)}, run_config=QUIET,
            raise_on_error=False)
    (check,) = [e for e in result.get_asset_check_evaluations() if e.check_name == "no_change_detected"
                and e.asset_key.to_user_string() == "clause_monitor"]
    assert not check.passed and "shifting" in check.description and "steady" not in check.description
    (sent,) = [b for b in bodies if b["check"] == "no_change_detected" and b["asset"] == "clause_monitor"]
    assert sent["partition"] is None and "shifting" in sent["summary"] and sent["figures"]["round"] == 3
    assert sent["figures"]["changes"] >= 1 and sent["severity"] == "ERROR"
    assert {b["check"] for b in bodies} <= {"no_change_detected", "comparable_scope", "rows_complete",
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
    alert = Alert(check="no_change_detected", asset="clause_monitor", partition=None, summary="gpt changed",
                  figures={"n": 1})
    assert isinstance(hook_for(None), LogHook) and isinstance(hook_for("log"), LogHook)
    with caplog.at_level(logging.WARNING, logger="lhl.alerts"):
        hook_for("log").send(alert)
        WebhookHook("http://127.0.0.1:9/nothing-listens", timeout_s=1).send(alert)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "lhl alert: check no_change_detected failed on clause_monitor: gpt changed"
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
