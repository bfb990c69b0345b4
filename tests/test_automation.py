"""Sensors and schedule: registry sync, recurring post-deployment audits, nightly metrics."""

from datetime import UTC, datetime

from dagster import build_schedule_context, build_sensor_context, instance_for_test

from lhl_platform.domain.models import ModelSpec
from lhl_platform.home import Home
from lhl_platform.registry import add_model
from orchestration.automation import model_registry_sensor, nightly_metrics_schedule, recurring_audit_sensor
from resources import LhlHome


def test_registry_sensor_adds_model_partitions(tmp_path):
    home = Home.resolve(tmp_path).ensure()
    add_model(home, ModelSpec(name="gpt-5.2", provider="openai", model_id="gpt-5.2"))
    with instance_for_test() as instance:
        context = build_sensor_context(instance=instance, resources={"lhl": LhlHome(path=str(tmp_path))})
        result = model_registry_sensor(context)
        (request,) = result.dynamic_partitions_requests
        assert request.partitions_def_name == "model" and list(request.partition_keys) == ["gpt-5.2"]


def test_recurring_audit_opens_the_next_round_for_monitored_models(tmp_path):
    home = Home.resolve(tmp_path).ensure()
    add_model(home, ModelSpec(name="prod", provider="offline", model_id="lexical", params={"monitor": True}))
    add_model(home, ModelSpec(name="trial", provider="offline", model_id="lexical"))
    with instance_for_test() as instance:
        instance.add_dynamic_partitions("run", ["1", "2"])
        context = build_sensor_context(instance=instance, resources={"lhl": LhlHome(path=str(tmp_path))})
        result = recurring_audit_sensor(context)
        (add,) = result.dynamic_partitions_requests
        assert add.partitions_def_name == "run" and list(add.partition_keys) == ["3"]
        (run,) = result.run_requests
        assert run.partition_key.keys_by_dimension == {"model": "prod", "run": "3"}
        assert run.run_key == "audit:prod:3"


def test_recurring_audit_skips_without_monitored_models(tmp_path):
    Home.resolve(tmp_path).ensure()
    with instance_for_test() as instance:
        context = build_sensor_context(instance=instance, resources={"lhl": LhlHome(path=str(tmp_path))})
        assert recurring_audit_sensor(context).skip_reason


def test_nightly_schedule_requests_a_metrics_run():
    with instance_for_test() as instance:
        tick = datetime(2026, 11, 29, 2, tzinfo=UTC)
        context = build_schedule_context(instance=instance, scheduled_execution_time=tick)
        assert nightly_metrics_schedule(context).run_key == "metrics:2026-11-29"
