"""What every launcher launches: job names, run config and tags, built in one place.

The CLI (in-process or queued), the sensors, the schedule and job backfills from the UI all launch the jobs of
`orchestration.definitions` with a request built here from the job's description in its suite: the same run
config (the model's registered settings, with explicit values overriding them) and the same tags (`lhl/provider`,
`lhl/model`, `lhl/run`). Only `lhl/launched_by` says who launched it. This holds for every suite's partition jobs,
the debate's included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dagster import MultiPartitionKey

from assets import suites as suite_assets
from assets.suites import ops_config, partition_key
from lhl_platform.clause.suite import AUDIT_JOB, CALIBRATE_JOB, CORPUS_JOB, DEBATE_JOB
from lhl_platform.home import Home
from lhl_platform.lexflip.suite import JUDGES_JOB
from lhl_platform.suites import suites
from lhl_platform.suites.contract import Job

__all__ = ["AUDIT_JOB", "CALIBRATE_JOB", "CORPUS_JOB", "DEBATE_JOB", "JUDGES_JOB", "LAUNCHED_BY_TAG", "METRICS_JOB",
           "Launch", "backfill_run_config", "backfill_tags", "find_job", "job_launch", "partition_jobs",
           "partition_launch"]

METRICS_JOB = "metrics"
PROVIDER_TAG = "lhl/provider"
MODEL_TAG = "lhl/model"
RUN_TAG = "lhl/run"
LAUNCHED_BY_TAG = "lhl/launched_by"
# A stage's item filters choose its items together: an explicit one replaces the model's registered others (an
# audit of `--subset S` for a model registered with `contracts: 3` audits S), as `partition_settings` reads them.
ITEM_FILTERS = ("contracts", "subset", "item_set")


@dataclass(frozen=True)
class Launch:
    """One run to launch: which job, which partition, with which config and tags."""

    job: str
    run_config: dict[str, Any]
    tags: dict[str, str]
    partition_key: MultiPartitionKey | str | None = None
    run_key: str | None = None
    what: str = field(default="", compare=False)


def find_job(name: str) -> Job:
    for suite in suites():
        for job in suite.jobs:
            if job.name == name:
                return job
    raise LookupError(f"no job named {name!r}")


def partition_jobs() -> tuple[str, ...]:
    """Every suite's jobs that run a partition (a model and run, or a model)."""
    return tuple(job.name for suite in suites() for job in suite.jobs if job.partitioning != "none")


def job_launch(home: Home, name: str, launched_by: str, *, model: str | None = None, run: int | None = None,
               config: dict[str, dict[str, Any]] | None = None, run_key: str | None = None, what: str = "") -> Launch:
    """A launch of one of the suites' jobs: its default run config for the partition (the model's registered
    settings), with the explicit `config` values that are not None overriding them, and its tags."""
    job = find_job(name)
    per_stage: dict[str, dict[str, Any]] = {}
    if job.run_config is not None and model is not None:
        per_stage = {stage: dict(values) for stage, values in job.run_config(home, model, run).items()}
    for stage, values in (config or {}).items():
        chosen = {k: v for k, v in values.items() if v is not None}
        if stage not in per_stage:
            per_stage[stage] = dict(values)
            continue
        registered = per_stage[stage]
        if any(k in ITEM_FILTERS for k in chosen):  # one choice of items: the explicit filter replaces the others
            registered = {k: None if k in ITEM_FILTERS else v for k, v in registered.items()}
        per_stage[stage] = {**registered, **chosen}
    tags = job.tags(home, model, run) if job.tags is not None and model is not None else {}
    key = partition_key(job, model, run) if model is not None else None
    where = "" if model is None else f" {model}" + ("" if run is None else f"/run {run}")
    return Launch(job=name, run_config=ops_config(per_stage), tags={**tags, LAUNCHED_BY_TAG: launched_by},
                  partition_key=key, run_key=run_key, what=what or f"{name}{where}")


def partition_launch(home: Home, job: str, model: str, run: int, launched_by: str, *,
                     config: dict[str, dict[str, Any]] | None = None, run_key: str | None = None) -> Launch:
    """Any suite's partition job for one (model, run): the model's registered settings, with `config` (the run
    config per stage the audit's options set: `orchestration.cli.audit.suite_overrides`) overriding them. What
    `lhl audit` runs or queues, and what the recurring audit sensor requests."""
    return job_launch(home, job, launched_by, model=model, run=run, config=config,
                      run_key=run_key or f"{job}:{model}:{run}")


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


# Job backfills launched from the UI ask the job's partitioned config for each partition's run config and tags
# (`assets.suites`); the audit job's answers, by partition key.

def backfill_run_config(partition: str) -> dict[str, Any]:
    return suite_assets.backfill_run_config(find_job(AUDIT_JOB), partition)


def backfill_tags(partition: str) -> dict[str, str]:
    return suite_assets.backfill_tags(find_job(AUDIT_JOB), partition)
