"""Sensors and the schedule: what keeps the platform current without anyone at the keyboard.

They run in the Dagster daemon (`lhl daemon`, or the one `lhl ui` starts); `lhl schedule list|enable|disable`
switches them without the UI.

* `model_registry_sensor` offers a model registered to be tested (`lhl models add`) that no suite has audited yet
  a `model` partition of the clause audit, so its audit can be launched from the UI, and withdraws the offer once
  the model is audited in another suite; a judge is never offered (each job's partitions are the models launched
  through it: `assets.partitions`). Outcomes brought in by `lhl import` are events, not partitions: a model only
  imported is in no job's dimensions, so it is never offered nor withdrawn, and never shows as a missing partition.
* `recurring_audit_sensor` audits every model registered with `params.monitor`, each on its own cadence
  (`params.audit.cadence_hours`) and with its own audit settings (judge, subset or contracts, and the spending
  limit of a round, `params.audit.max_cost_usd`, which the round's extraction and judge calls honour together:
  `lhl_platform.calls.budget`): a due model gets the next audit round (`run` key; schedules cannot add
  partitions, hence a sensor), through the same launch request as `lhl audit`.
* `metrics_refresh_sensor` rebuilds the SQL models, checks and drift once partitions have landed that are
  newer than them, whoever launched those partitions (CLI, sensor, UI backfill), after in-flight partition
  runs have finished.
* `active_corpus_sensor` re-materializes `contracts` and `oracle` when the active corpus is not the one
  their latest materialization shows (after `lhl ingest`).
* `profiles_automation` evaluates `model_profiles`' eager condition (a partition whose verdicts landed
  without its profile gets one).
* `nightly_metrics_schedule` rebuilds the SQL models and checks at 02:00 (off by default).
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from dagster import (
    AddDynamicPartitionsRequest,
    AssetKey,
    AssetSelection,
    AutomationConditionSensorDefinition,
    DagsterInstance,
    DagsterRunStatus,
    DefaultScheduleStatus,
    DefaultSensorStatus,
    DeleteDynamicPartitionsRequest,
    RunRequest,
    RunsFilter,
    ScheduleEvaluationContext,
    SensorEvaluationContext,
    SensorResult,
    schedule,
    sensor,
)

import lhl_platform.catalog  # noqa: F401  (the suites, whose jobs and stages the sensors name)
from assets.partitions import audit_partitions, job_family, model_partitions, partition_set, run_partitions
from lhl_platform.corpus.store import active_corpus_id
from lhl_platform.domain.models import ModelSpec
from lhl_platform.registry import RegistryError, list_models
from lhl_platform.suites import suites
from orchestration.runs import (
    AUDIT_JOB,
    CORPUS_JOB,
    METRICS_JOB,
    MODEL_TAG,
    Launch,
    corpus_launch,
    find_job,
    metrics_launch,
    partition_jobs,
    partition_launch,
)
from resources import LhlHome

MODEL_DIM = model_partitions.name or "model"
RUN_DIM = run_partitions.name or "run"
REFRESH_TICK_ENV = "LHL_REFRESH_TICK_SECONDS"


def tick_seconds(variable: str, default: int) -> int:
    """A sensor's interval: `default`, or the whole seconds `variable` gives (how soon a daemon reacts after a
    partition lands; a test's daemon uses 1). Anything else is refused in one line when the code location loads."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{variable} must be a whole number of seconds, at least 1, not {text!r}")
    return int(text)


RECURRING_TICK_SECONDS = 60
REFRESH_TICK_SECONDS = tick_seconds(REFRESH_TICK_ENV, 30)
IN_FLIGHT = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING,
             DagsterRunStatus.STARTED]
# What a partition run leaves behind last (the last stage of every suite's partition jobs); the marts are current
# when `model_drift` is newer than all of them.
PARTITION_OUTPUTS = tuple(dict.fromkeys(AssetKey(job.stages[-1]) for suite in suites() for job in suite.jobs
                                        if job.partitioning != "none"))
MARTS_DONE = AssetKey("model_drift")
EAGER = [AssetKey(stage.name) for suite in suites() for stage in suite.stages if stage.eager]


def run_request(launch: Launch) -> RunRequest:
    return RunRequest(run_key=launch.run_key, job_name=launch.job, run_config=launch.run_config, tags=launch.tags,
                      partition_key=launch.partition_key)


def monitored_models(lhl: LhlHome) -> list[ModelSpec]:
    return [m for m in list_models(lhl.home()) if m.role == "extractor" and m.params.monitor]


@sensor(minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING,
        description="Offers a model registered to be tested that no suite has audited yet a `model` partition of "
                    "the clause audit (to launch its audit from the UI), and withdraws the offer once it is audited "
                    "in another suite; a judge is never offered.")
def model_registry_sensor(context: SensorEvaluationContext, lhl: LhlHome) -> SensorResult:
    instance = context.instance
    known = set(instance.get_dynamic_partitions(MODEL_DIM))
    families = {job_family(suite, job) for suite in suites() for job in suite.jobs if job.partitioning != "none"}
    elsewhere = {model for family in families - {AUDIT_JOB}
                 for model in instance.get_dynamic_partitions(str(partition_set(family).model.name))}
    new = [m.name for m in list_models(lhl.home()) if m.role == "extractor" and m.name not in known | elsewhere]
    requests: list[AddDynamicPartitionsRequest | DeleteDynamicPartitionsRequest] = (
        [AddDynamicPartitionsRequest(MODEL_DIM, new)] if new else [])
    offered = sorted((known & elsewhere) - _audited_here(instance))
    if offered:
        requests.append(DeleteDynamicPartitionsRequest(MODEL_DIM, offered))
    return SensorResult(dynamic_partitions_requests=requests)


def _audited_here(instance: DagsterInstance) -> set[str]:
    """The models with a clause audit partition materialized, queued or running."""
    first = AssetKey(find_job(AUDIT_JOB).stages[0])
    done = {str(audit_partitions.get_partition_key_from_str(key).keys_by_dimension[MODEL_DIM])
            for key in instance.get_materialized_partitions(first)}
    busy = {r.dagster_run.tags.get(MODEL_TAG, "") for r in _in_flight(instance) if r.dagster_run.job_name == AUDIT_JOB}
    return done | busy


@sensor(job_name=AUDIT_JOB, minimum_interval_seconds=RECURRING_TICK_SECONDS,
        default_status=DefaultSensorStatus.STOPPED,
        description="Post-deployment monitoring: audits each model registered with params.monitor=true once its "
                    "cadence (params.audit.cadence_hours, default weekly) has passed, in a new audit round, with "
                    "its registered audit settings (judge, subset, spending limit). Enable with `lhl schedule enable "
                    "recurring_audit_sensor`.")
def recurring_audit_sensor(context: SensorEvaluationContext, lhl: LhlHome) -> SensorResult:
    home = lhl.home()
    models = monitored_models(lhl)
    if not models:
        return SensorResult(skip_reason="no model is registered with params.monitor=true")
    last: dict[str, float] = json.loads(context.cursor) if context.cursor else {}
    now = time.time()
    due = [m for m in models if now - last.get(m.name, 0.0) >= m.params.audit.cadence_hours * 3600]
    if not due:
        return SensorResult(skip_reason="no monitored model is due (cadence: params.audit.cadence_hours)")
    runs = [int(r) for r in context.instance.get_dynamic_partitions(RUN_DIM)]
    next_run = max(runs, default=0) + 1
    known = set(context.instance.get_dynamic_partitions(MODEL_DIM))
    requests, skipped = [], []
    for spec in due:
        try:
            # the partition launch `lhl audit` builds (no options: the model's registered settings), under the
            # sensor's own run key for the round, which Dagster dedups its requests by
            requests.append(run_request(partition_launch(home, AUDIT_JOB, spec.name, next_run, "sensor",
                                                         run_key=f"audit:{spec.name}:{next_run}")))
        except (RegistryError, LookupError, ValueError) as exc:  # e.g. its audit judge is not registered
            skipped.append(f"{spec.name}: {exc}")
            continue
        last[spec.name] = now
    for note in skipped:
        context.log.warning(f"recurring audit skipped {note}")
    if not requests:
        return SensorResult(skip_reason="; ".join(skipped), cursor=json.dumps(last))
    partitions = [AddDynamicPartitionsRequest(RUN_DIM, [str(next_run)])]
    new_models = [r.tags["lhl/model"] for r in requests if r.tags["lhl/model"] not in known]
    if new_models:
        partitions.append(AddDynamicPartitionsRequest(MODEL_DIM, new_models))
    return SensorResult(run_requests=requests, dynamic_partitions_requests=partitions, cursor=json.dumps(last))


def latest_storage_id(instance: DagsterInstance, key: AssetKey) -> int:
    records = instance.fetch_materializations(key, limit=1, ascending=False).records
    return records[0].storage_id if records else 0


def _in_flight(instance: DagsterInstance) -> list[Any]:
    return list(instance.get_run_records(RunsFilter(statuses=IN_FLIGHT)))


@sensor(job_name=METRICS_JOB, minimum_interval_seconds=REFRESH_TICK_SECONDS,
        default_status=DefaultSensorStatus.RUNNING,
        description="Rebuilds the SQL models, checks and drift when partitions newer than them have landed "
                    "(whoever launched them), once no partition run is queued or in progress.")
def metrics_refresh_sensor(context: SensorEvaluationContext) -> SensorResult:
    instance = context.instance
    landed = max(latest_storage_id(instance, key) for key in PARTITION_OUTPUTS)
    built = latest_storage_id(instance, MARTS_DONE)
    if landed <= built:
        return SensorResult(skip_reason="the marts, checks and drift are newer than every partition")
    busy = [r.dagster_run for r in _in_flight(instance)]
    if any(run.job_name == METRICS_JOB for run in busy):
        return SensorResult(skip_reason="a metrics run is already queued or running")
    partition_runs = [run for run in busy if run.job_name in partition_jobs() or run.tags.get("dagster/partition")]
    if partition_runs:
        return SensorResult(skip_reason=f"waiting for {len(partition_runs)} partition run(s) to finish")
    return SensorResult(run_requests=[run_request(metrics_launch("sensor", run_key=f"refresh:{landed}"))])


@sensor(job_name=CORPUS_JOB, minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING,
        description="Re-materializes contracts and oracle when the active corpus (the one ingested last) is not "
                    "the one their latest materialization shows.")
def active_corpus_sensor(context: SensorEvaluationContext, lhl: LhlHome) -> SensorResult:
    try:
        active = active_corpus_id(lhl.home())
    except (RuntimeError, LookupError):
        return SensorResult(skip_reason="no corpus ingested yet")
    shown = shown_corpus(context.instance)
    if shown == active:
        return SensorResult(skip_reason=f"contracts and oracle show the active corpus {active}")
    key = f"corpus:{active}:{latest_storage_id(context.instance, AssetKey('contracts'))}"
    return SensorResult(run_requests=[run_request(corpus_launch("sensor", run_key=key))])


def shown_corpus(instance: DagsterInstance) -> str | None:
    """The corpus id the latest materialization of `contracts` recorded."""
    event = instance.get_latest_materialization_event(AssetKey("contracts"))
    materialization = event.asset_materialization if event is not None else None
    value = materialization.metadata.get("corpus_id") if materialization is not None else None
    return str(value.value) if value is not None else None


profiles_automation = AutomationConditionSensorDefinition(
    "profiles_automation", target=AssetSelection.assets(*EAGER), default_status=DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=REFRESH_TICK_SECONDS,
    description="Declarative automation of the cheap per-partition SQL (model_profiles is eager): never the "
                "assets that spend money on model calls.")


@schedule(cron_schedule="0 2 * * *", job_name=METRICS_JOB, default_status=DefaultScheduleStatus.STOPPED,
          description="Rebuild the SQL models and run the outcome checks nightly.")
def nightly_metrics_schedule(context: ScheduleEvaluationContext) -> RunRequest:
    return run_request(metrics_launch("schedule", run_key=f"metrics:{context.scheduled_execution_time:%Y-%m-%d}"))


SENSORS = [model_registry_sensor, recurring_audit_sensor, metrics_refresh_sensor, active_corpus_sensor,
           profiles_automation]
SCHEDULES = [nightly_metrics_schedule]


