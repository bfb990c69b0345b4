"""Partitions per suite job: each partitioned job of a suite (a suite's audit, the debate, its calibration) has its
own dynamic `model` and `run` dimensions, holding the models and rounds launched through that job, so an asset's
partitions are the models audited there: a judge, or a model audited in another suite, is never one of its missing
partitions. A stage's partitions are those of the partitioned job that runs it.

The clause audit's dimensions keep the names its instances have always held (`model`, `run`: the partitions an
existing home recorded stay where they were); every other job's are `<job>.model` and `<job>.run`. Within a
multi-partition the dimensions are always named `model` and `run`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from dagster import (
    AllPartitionMapping,
    DagsterInstance,
    DynamicPartitionsDefinition,
    MultiPartitionKey,
    MultiPartitionsDefinition,
    PartitionMapping,
    PartitionsDefinition,
)

if TYPE_CHECKING:
    from lhl_platform.suites.contract import Job, Stage, Suite

# The clause audit's job (`lhl_platform.clause.suite.AUDIT_JOB`) and the names its dimensions have always had.
HISTORIC_JOB = "audit_partition"
MODEL_DIM, RUN_DIM = "model", "run"


@dataclass(frozen=True)
class PartitionSet:
    """One partitioned job's dimensions: `model` alone, or `model` x `run`."""

    model: DynamicPartitionsDefinition
    run: DynamicPartitionsDefinition
    multi: MultiPartitionsDefinition

    def of(self, partitioning: str) -> PartitionsDefinition | None:
        return {"model_run": self.multi, "model": self.model}.get(partitioning)


@cache
def partition_set(family: str) -> PartitionSet:
    """The dimensions of a partitioned job (or, for a partitioned stage no job runs, of its suite), by name; one
    object per name, since Dagster compares partitions definitions by identity within a code location."""
    names = (MODEL_DIM, RUN_DIM) if family == HISTORIC_JOB else (f"{family}.{MODEL_DIM}", f"{family}.{RUN_DIM}")
    model, run = (DynamicPartitionsDefinition(name=n) for n in names)
    return PartitionSet(model, run, MultiPartitionsDefinition({MODEL_DIM: model, RUN_DIM: run}))


def job_family(suite: Suite, job: Job) -> str:
    """Whose dimensions a partitioned job uses: its own; a job by model that a (model, run) job of the suite reads
    (the debate's calibration, per backbone debated) shares that job's `model` dimension."""
    if job.partitioning == "model":
        own = set(job.stages)
        reader = next((j for j in suite.jobs if j.partitioning == "model_run"
                       and any(own & set(suite.stage(name).after) for name in j.stages)), None)
        if reader is not None:
            return reader.name
    return job.name


def family_of_stage(suite: Suite, stage: Stage) -> str:
    """The dimensions of the partitioned job that runs the stage (its first), else the suite's own."""
    job = next((j for j in suite.jobs if j.partitioning != "none" and stage.name in j.stages), None)
    return job_family(suite, job) if job is not None else suite.name


def stage_partitions(suite: Suite, stage: Stage) -> PartitionsDefinition | None:
    return partition_set(family_of_stage(suite, stage)).of(stage.partitioning)


def job_partitions(suite: Suite, job: Job) -> PartitionsDefinition | None:
    return partition_set(job_family(suite, job)).of(job.partitioning)


def upstream_mapping(suite: Suite, stage: Stage, upstream: str) -> PartitionMapping | None:
    """How a stage reads a partitioned stage of another job's dimensions: by the same key when both are keyed
    alike (Dagster's identity), else every upstream partition (the debate's calibration, per backbone, reads the
    backbone's whole audit); None where Dagster's own inference holds (the same dimensions, or no partitions)."""
    other = next((s for s in suite.stages if s.name == upstream), None)
    if other is None or other.partitioning == "none" or stage.partitioning == "none":
        return None
    if family_of_stage(suite, other) == family_of_stage(suite, stage) or other.partitioning == stage.partitioning:
        return None
    return AllPartitionMapping()


def suite_job(name: str) -> tuple[Suite, Job]:
    """The registered suite that has the job, and the job."""
    from lhl_platform.suites import suites

    for suite in suites():
        for job in suite.jobs:
            if job.name == name:
                return suite, job
    raise LookupError(f"no job named {name!r}")


model_partitions = partition_set(HISTORIC_JOB).model
run_partitions = partition_set(HISTORIC_JOB).run
audit_partitions = partition_set(HISTORIC_JOB).multi


def ensure_job_partition(instance: DagsterInstance, job_name: str, key: MultiPartitionKey | str) -> None:
    """Add a launch's model (and run) to its job's dimensions, before the run is executed or queued."""
    dims = partition_set(job_family(*suite_job(job_name)))
    if isinstance(key, MultiPartitionKey):
        wanted = [(dims.model, key.keys_by_dimension[MODEL_DIM]), (dims.run, key.keys_by_dimension[RUN_DIM])]
    else:
        wanted = [(dims.model, key)]
    for definition, value in wanted:
        add_partitions_once(instance, str(definition.name), [value])


def add_partitions_once(instance: DagsterInstance, name: str, keys: Sequence[str]) -> None:
    """Add the keys a dynamic dimension lacks. Two processes on one home may both see a key missing and both add
    it: the second's insert then fails on the storage's unique constraint, which is no error once every key is
    there."""
    missing = [k for k in keys if not instance.has_dynamic_partition(name, k)]
    if not missing:
        return
    try:
        instance.add_dynamic_partitions(name, missing)
    except Exception:
        if not all(instance.has_dynamic_partition(name, k) for k in missing):
            raise


def audit_key(model: str, run: int) -> MultiPartitionKey:
    return MultiPartitionKey({MODEL_DIM: model, RUN_DIM: str(run)})


def model_and_run(partition_key: MultiPartitionKey) -> tuple[str, int]:
    keys = partition_key.keys_by_dimension
    return keys[MODEL_DIM], int(keys[RUN_DIM])
