"""Sensors and schedule: registry sync, recurring post-deployment audits with each model's own settings and
cadence, the refresh of marts and corpus assets, and `lhl schedule` / `lhl daemon` without the UI."""

import json
from datetime import UTC, datetime

import pytest
from dagster import build_schedule_context, build_sensor_context, instance_for_test

from lhl_platform.domain.models import ModelSpec
from lhl_platform.home import Home
from lhl_platform.registry import add_model
from orchestration.automation import (
    active_corpus_sensor,
    metrics_refresh_sensor,
    model_registry_sensor,
    nightly_metrics_schedule,
    recurring_audit_sensor,
    tick_seconds,
)
from orchestration.cli import main
from orchestration.cli.schedule import daemon_command, daemon_env
from resources import LhlHome


def _context(instance, tmp_path, cursor=None):
    return build_sensor_context(instance=instance, cursor=cursor, resources={"lhl": LhlHome(path=str(tmp_path))})


def test_registry_sensor_adds_model_partitions(tmp_path):
    home = Home.resolve(tmp_path).ensure()
    add_model(home, ModelSpec(name="gpt-5.2", provider="openai", model_id="gpt-5.2"))
    with instance_for_test() as instance:
        result = model_registry_sensor(_context(instance, tmp_path))
        (request,) = result.dynamic_partitions_requests
        assert request.partitions_def_name == "model" and list(request.partition_keys) == ["gpt-5.2"]


def test_recurring_audit_opens_the_next_round_for_monitored_models(tmp_path):
    home = Home.resolve(tmp_path).ensure()
    add_model(home, ModelSpec(name="prod", provider="offline", model_id="lexical", params={"monitor": True}))
    add_model(home, ModelSpec(name="trial", provider="offline", model_id="lexical"))
    with instance_for_test() as instance:
        instance.add_dynamic_partitions("run", ["1", "2"])
        instance.add_dynamic_partitions("model", ["prod", "trial"])
        result = recurring_audit_sensor(_context(instance, tmp_path))
        (add,) = result.dynamic_partitions_requests
        assert add.partitions_def_name == "run" and list(add.partition_keys) == ["3"]
        (run,) = result.run_requests
        assert run.partition_key.keys_by_dimension == {"model": "prod", "run": "3"}
        assert run.run_key == "audit:prod:3"
        assert run.tags["lhl/provider"] == "offline" and run.tags["lhl/model"] == "prod"
        assert run.run_config["ops"]["judge_verdicts"]["config"]["judge"] == "rubric"
        assert "prod" in json.loads(result.cursor)


def test_each_monitored_model_keeps_its_own_cadence(tmp_path):
    home = Home.resolve(tmp_path).ensure()
    add_model(home, ModelSpec(name="daily", provider="offline", model_id="lexical",
                              params={"monitor": True, "audit": {"cadence_hours": 24}}))
    add_model(home, ModelSpec(name="weekly", provider="offline", model_id="lexical", params={"monitor": True}))
    now = datetime.now(UTC).timestamp()
    cursor = json.dumps({"daily": now - 25 * 3600, "weekly": now - 25 * 3600})
    with instance_for_test() as instance:
        result = recurring_audit_sensor(_context(instance, tmp_path, cursor))
        assert [r.tags["lhl/model"] for r in result.run_requests] == ["daily"]
        # The new model key is added with the new round when the registry sensor has not added it yet.
        assert {r.partitions_def_name for r in result.dynamic_partitions_requests} == {"run", "model"}


def test_recurring_audit_skips_without_monitored_models(tmp_path):
    Home.resolve(tmp_path).ensure()
    with instance_for_test() as instance:
        assert recurring_audit_sensor(_context(instance, tmp_path)).skip_reason


def test_refresh_and_corpus_sensors_do_nothing_on_an_empty_home(tmp_path):
    Home.resolve(tmp_path).ensure()
    with instance_for_test() as instance:
        assert "newer" in metrics_refresh_sensor(_context(instance, tmp_path)).skip_reason.skip_message
        assert "no corpus" in active_corpus_sensor(_context(instance, tmp_path)).skip_reason.skip_message


def test_the_active_corpus_sensor_rerecords_contracts_after_an_ingest(tmp_path):
    from lhl_platform.corpus.cuad import load_master_layout
    from lhl_platform.corpus.demo import DEMO_DIR
    from lhl_platform.corpus.store import save_corpus

    home = Home.resolve(tmp_path).ensure()
    corpus_id = save_corpus(home, load_master_layout(DEMO_DIR), source=str(DEMO_DIR))
    with instance_for_test() as instance:
        (request,) = active_corpus_sensor(_context(instance, tmp_path)).run_requests
        assert request.job_name == "corpus" and corpus_id in request.run_key and request.run_config == {}


def test_the_refresh_interval_is_30_s_unless_the_environment_gives_whole_seconds(monkeypatch):
    monkeypatch.delenv("LHL_REFRESH_TICK_SECONDS", raising=False)
    assert metrics_refresh_sensor.minimum_interval_seconds == 30  # this process's environment sets none
    assert tick_seconds("LHL_REFRESH_TICK_SECONDS", 30) == 30
    monkeypatch.setenv("LHL_REFRESH_TICK_SECONDS", " 2 ")
    assert tick_seconds("LHL_REFRESH_TICK_SECONDS", 30) == 2
    for bad in ("0", "1.5", "soon", "-3"):
        monkeypatch.setenv("LHL_REFRESH_TICK_SECONDS", bad)
        with pytest.raises(ValueError, match=f"LHL_REFRESH_TICK_SECONDS must be a whole number of seconds, "
                                             f"at least 1, not '{bad}'"):
            tick_seconds("LHL_REFRESH_TICK_SECONDS", 30)


def test_nightly_schedule_requests_a_metrics_run():
    with instance_for_test() as instance:
        tick = datetime(2026, 11, 29, 2, tzinfo=UTC)
        context = build_schedule_context(instance=instance, scheduled_execution_time=tick)
        request = nightly_metrics_schedule(context)
        assert request.run_key == "metrics:2026-11-29" and request.tags["lhl/launched_by"] == "schedule"


def test_schedule_list_enable_disable_without_the_ui(tmp_path, capsys):
    home = str(tmp_path)
    assert main(["--home", home, "schedule", "list"]) == 0
    listed = {line.split()[0]: line.split()[2] for line in capsys.readouterr().out.splitlines()[:-1]}
    assert listed == {"active_corpus_sensor": "running", "metrics_refresh_sensor": "running",
                      "model_registry_sensor": "running", "profiles_automation": "running",
                      "recurring_audit_sensor": "stopped", "nightly_metrics_schedule": "stopped"}
    assert main(["--home", home, "schedule", "enable", "recurring_audit_sensor"]) == 0
    assert main(["--home", home, "schedule", "enable", "nightly_metrics_schedule"]) == 0
    assert main(["--home", home, "schedule", "disable", "metrics_refresh_sensor"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "schedule", "list"]) == 0
    listed = {line.split()[0]: line.split()[2] for line in capsys.readouterr().out.splitlines()[:-1]}
    assert (listed["recurring_audit_sensor"], listed["nightly_metrics_schedule"],
            listed["metrics_refresh_sensor"]) == ("running", "running", "stopped")
    assert main(["--home", home, "schedule", "enable", "no_such_sensor"]) == 1
    assert "no sensor or schedule named" in capsys.readouterr().err


def test_the_daemon_command_runs_the_dagster_daemon_for_this_home(tmp_path):
    home = Home.resolve(tmp_path)
    command = daemon_command()
    assert command[1:4] == ["-m", "dagster._daemon", "run"] and "orchestration.definitions" in command
    env = daemon_env(home)
    assert env["DAGSTER_HOME"] == str(home.dagster_dir) and env["LHL_HOME"] == str(home.root)
