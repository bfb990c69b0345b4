"""What every launcher launches: job names, run config and tags, built in one place.

The CLI (in-process or queued), the sensors, the schedule and job backfills from the UI all launch the jobs of
`orchestration.definitions` with a request built here, so a partition audited by any of them carries the
same run config (the model's registered audit settings, resolved by `assets.partitions.partition_settings`)
and the same tags (`lhl/provider`, `lhl/model`, `lhl/run`). Only `lhl/launched_by` says who launched it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dagster import MultiPartitionKey

from assets.partitions import PartitionSettings, audit_key, audit_partitions, model_and_run, partition_settings
from lhl_platform.home import Home
from lhl_platform.registry import RegistryError, get_model

AUDIT_JOB = "audit_partition"
METRICS_JOB = "metrics"
CORPUS_JOB = "corpus"
JUDGES_JOB = "judges"
DEBATE_JOB = "debate_partition"
PARTITION_JOBS = (AUDIT_JOB, DEBATE_JOB)

PROVIDER_TAG = "lhl/provider"
MODEL_TAG = "lhl/model"
RUN_TAG = "lhl/run"
LAUNCHED_BY_TAG = "lhl/launched_by"


@dataclass(frozen=True)
class Launch:
    """One run to launch: which job, which partition, with which config and tags."""

    job: str
    run_config: dict[str, Any]
    tags: dict[str, str]
    partition_key: MultiPartitionKey | None = None
    run_key: str | None = None
    what: str = field(default="", compare=False)


def audit_run_config(settings: PartitionSettings) -> dict[str, Any]:
    return {"ops": {"extractions": {"config": {"contracts": settings.contracts, "subset": settings.subset}},
                    "judge_verdicts": {"config": {"judge": settings.judge}},
                    "model_profiles": {"config": {"judge": settings.judge}}}}


def audit_tags(home: Home, model: str, run: int) -> dict[str, str]:
    return {PROVIDER_TAG: get_model(home, model).provider, MODEL_TAG: model, RUN_TAG: str(run)}


def audit_launch(home: Home, model: str, run: int, launched_by: str, *, judge: str | None = None,
                 contracts: int | None = None, subset: str | None = None) -> Launch:
    """Extract, judge and profile one (model, run) partition with the model's audit settings (explicit
    values override them)."""
    settings = partition_settings(home, model, judge=judge, contracts=contracts, subset=subset)
    return Launch(job=AUDIT_JOB, run_config=audit_run_config(settings),
                  tags={**audit_tags(home, model, run), LAUNCHED_BY_TAG: launched_by},
                  partition_key=audit_key(model, run), run_key=f"audit:{model}:{run}",
                  what=f"partition {model}/run {run}")


def metrics_launch(launched_by: str, run_key: str | None = None) -> Launch:
    return Launch(job=METRICS_JOB, run_config={}, tags={LAUNCHED_BY_TAG: launched_by}, run_key=run_key,
                  what="SQL models, checks and drift")


def judges_launch(launched_by: str, run_key: str | None = None) -> Launch:
    return Launch(job=JUDGES_JOB, run_config={}, tags={LAUNCHED_BY_TAG: launched_by}, run_key=run_key,
                  what="judge validation and agreement")


def corpus_launch(launched_by: str, path: str | None = None, run_key: str | None = None) -> Launch:
    config = {"ops": {"contracts": {"config": {"path": path}}}} if path else {}
    return Launch(job=CORPUS_JOB, run_config=config, tags={LAUNCHED_BY_TAG: launched_by}, run_key=run_key,
                  what="corpus")


# Job backfills launched from the UI ask the job's partitioned config for each partition's run config and
# tags. The code location reads the home named by LHL_HOME (as `lhl ui` and `lhl daemon` set it).

def _settings_for_key(partition_key: str) -> tuple[Home, str, int] | None:
    key = audit_partitions.get_partition_key_from_str(partition_key)
    model, run = model_and_run(key)  # type: ignore[arg-type]
    home = Home.resolve(None)
    return (home, model, run) if home.root.exists() else None


def backfill_run_config(partition_key: str) -> dict[str, Any]:
    found = _settings_for_key(partition_key)
    if found is None:
        return {}
    try:
        return audit_run_config(partition_settings(found[0], found[1]))
    except RegistryError:
        return {}  # not registered in this home: the assets resolve their defaults when the run starts


def backfill_tags(partition_key: str) -> dict[str, str]:
    found = _settings_for_key(partition_key)
    if found is None:
        return {}
    try:
        return audit_tags(*found)
    except RegistryError:
        return {}
