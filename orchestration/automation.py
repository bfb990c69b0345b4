"""Recurring post-deployment audits and registry sync.

Schedules cannot add dynamic partitions, so the sensors do: one keeps the `model` dimension in step
with the registry; one opens a new audit round (`run` key) on a cadence and requests a partition run
for every monitored model. A nightly schedule rebuilds the cheap SQL models.
"""


import os

from dagster import (
    AddDynamicPartitionsRequest,
    DefaultScheduleStatus,
    DefaultSensorStatus,
    RunRequest,
    ScheduleEvaluationContext,
    SensorEvaluationContext,
    SensorResult,
    schedule,
    sensor,
)

from assets.partitions import audit_key, model_partitions, run_partitions
from lhl_platform.registry import list_models
from resources import LhlHome

AUDIT_INTERVAL_SECONDS = int(os.environ.get("LHL_AUDIT_INTERVAL_SECONDS", str(7 * 24 * 3600)))


def monitored_models(lhl: LhlHome) -> list[str]:
    return [m.name for m in list_models(lhl.home()) if m.role == "extractor" and m.params.monitor]


@sensor(minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING,
        description="Adds a `model` partition for every model registered with `lhl models add`.")
def model_registry_sensor(context: SensorEvaluationContext, lhl: LhlHome) -> SensorResult:
    known = set(context.instance.get_dynamic_partitions(model_partitions.name or "model"))
    new = [m.name for m in list_models(lhl.home()) if m.name not in known]
    requests = [AddDynamicPartitionsRequest(model_partitions.name or "model", new)] if new else []
    return SensorResult(dynamic_partitions_requests=requests)


@sensor(job_name="audit_partition", minimum_interval_seconds=AUDIT_INTERVAL_SECONDS,
        default_status=DefaultSensorStatus.STOPPED,
        description="Post-deployment monitoring: on each tick opens the next audit round and audits every "
                    "model registered with params.monitor=true (cadence: LHL_AUDIT_INTERVAL_SECONDS).")
def recurring_audit_sensor(context: SensorEvaluationContext, lhl: LhlHome) -> SensorResult:
    models = monitored_models(lhl)
    if not models:
        return SensorResult(skip_reason="no model is registered with params.monitor=true")
    runs = [int(r) for r in context.instance.get_dynamic_partitions(run_partitions.name or "run")]
    next_run = max(runs, default=0) + 1
    return SensorResult(
        dynamic_partitions_requests=[AddDynamicPartitionsRequest(run_partitions.name or "run", [str(next_run)])],
        run_requests=[RunRequest(run_key=f"audit:{m}:{next_run}", partition_key=audit_key(m, next_run))
                      for m in models])


@schedule(cron_schedule="0 2 * * *", job_name="metrics", default_status=DefaultScheduleStatus.STOPPED,
          description="Rebuild the SQL models and run the outcome checks nightly.")
def nightly_metrics_schedule(context: ScheduleEvaluationContext) -> RunRequest:
    return RunRequest(run_key=f"metrics:{context.scheduled_execution_time:%Y-%m-%d}")
