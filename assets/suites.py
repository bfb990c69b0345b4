"""Every suite's stages as Dagster assets, its jobs as asset jobs and its mart checks as asset checks, built from
the suite's description (`lhl_platform.suites.contract`), so a suite brings no Dagster code of its own.

A stage becomes one asset, partitioned by model x run, by model, or not at all, over the dimensions of the job
that runs it (`assets.partitions`: the models audited through that job). Its run config is the stage's
Pydantic config class (fields left open resolve to the model's registered settings when the stage runs); the
stage's unit of work gets the home, the partition and the config, and its result becomes the materialization's
metadata and the results of the checks the stage declares. Partitioned assets write their own data (events) and
return metadata, since Dagster's DuckDB IO manager fails on multi-partitions with a dynamic dimension.
"""

# No `from __future__ import annotations`: Dagster reads the generated functions' annotations as classes.

import sys
from collections.abc import Iterator
from typing import Any

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckKey,
    AssetCheckResult,
    AssetChecksDefinition,
    AssetCheckSpec,
    AssetDep,
    AssetExecutionContext,
    AssetKey,
    AssetsDefinition,
    AutomationCondition,
    Config,
    DataVersion,
    JobDefinition,
    MaterializeResult,
    MetadataValue,
    MultiPartitionKey,
    MultiPartitionsDefinition,
    PartitionedConfig,
    asset,
    define_asset_job,
    in_process_executor,
    multi_asset_check,
)
from dagster._core.definitions.unresolved_asset_job_definition import UnresolvedAssetJobDefinition
from pydantic import create_model

from assets.partitions import job_partitions, model_and_run, stage_partitions, suite_job, upstream_mapping
from checks.results import to_check_result
from lhl_platform.domain.redaction import redact
from lhl_platform.home import Home
from lhl_platform.report.monitor import mart_checks
from lhl_platform.suites.contract import FilePath, Job, Markdown, MartCheck, NoConfig, Stage, StageContext, Suite
from lhl_platform.warehouse.build import read_warehouse
from resources import LhlHome


def dagster_config(stage: Stage) -> type[Config] | None:
    """The stage's config class as a Dagster Config (the same fields, defaults and descriptions)."""
    if stage.config is NoConfig:
        return None
    fields: dict[str, Any] = {name: (f.annotation, f) for name, f in stage.config.model_fields.items()}
    made: type[Config] = create_model(f"{stage.config.__name__}Run", __base__=Config, **fields)
    return made


def metadata_value(value: Any) -> Any:
    if isinstance(value, Markdown):
        return MetadataValue.md(str(value))
    if isinstance(value, FilePath):
        return MetadataValue.path(str(value))
    return value


def _partition(key: Any, stage: Stage) -> tuple[str | None, int | None]:
    if stage.partitioning == "model_run":
        return model_and_run(key)
    if stage.partitioning == "model":
        return str(key), None
    return None, None


def stage_asset(suite: Suite, stage: Stage) -> AssetsDefinition:
    config_class = dagster_config(stage)

    def body(context: AssetExecutionContext, lhl: LhlHome, config: Any = None) -> Iterator[object]:
        model, run = _partition(context.partition_key if stage.partitioning != "none" else None, stage)
        settings = stage.config.model_validate(config.model_dump() if config is not None else {})
        def warn(text: str) -> None:
            # in the run's log, and on stderr: `lhl` keeps Dagster's console to critical messages (one line per
            # failure is its own job), so a warning reaches whoever runs the command this way
            context.log.warning(text)
            print(f"lhl: {redact(text)}", file=sys.stderr, flush=True)

        ctx = StageContext(home=lhl.home(), model=model, run=run, config=settings, log=context.log.info, warn=warn)
        result = stage.run(ctx)
        for subject, reason in result.failures[:20]:
            warn(f"{subject}: {reason}")
        yield MaterializeResult(metadata={k: metadata_value(v) for k, v in result.metadata.items()},
                                data_version=DataVersion(result.data_version) if result.data_version else None)
        for outcome in result.checks:
            yield to_check_result(outcome, named=True, lhl=lhl, asset=stage.name, partition=ctx.partition)

    if config_class is not None:
        def run_stage(context: AssetExecutionContext, config: Any, lhl: LhlHome) -> Iterator[object]:
            yield from body(context, lhl, config)

        run_stage.__annotations__["config"] = config_class
    else:
        def run_stage(context: AssetExecutionContext, lhl: LhlHome) -> Iterator[object]:  # type: ignore[misc]
            yield from body(context, lhl)

    run_stage.__name__ = stage.name
    return asset(  # type: ignore[no-any-return]
        name=stage.name, group_name=stage.group or suite.name, partitions_def=stage_partitions(suite, stage),
        deps=[AssetDep(name, partition_mapping=upstream_mapping(suite, stage, name)) for name in stage.after],
        check_specs=[AssetCheckSpec(c.name, asset=stage.name, description=c.description or None)
                     for c in stage.checks] or None,
        description=stage.description, tags={"lhl/spends": "model-calls"} if stage.spends else None,
        automation_condition=AutomationCondition.eager() if stage.eager else None,
        kinds=set(stage.kinds) or None, metadata={"lhl/suite": suite.name, "lhl/stage_kind": stage.kind},
    )(run_stage)


def mart_checks_step(suite: Suite, checks: tuple[MartCheck, ...]) -> AssetChecksDefinition:
    """The suite's mart checks as one step: each stays its own check in the UI, but one step start and one
    warehouse read serve them all (a step per check cost the metrics job more than the checks themselves)."""
    by_key = {AssetCheckKey(AssetKey(c.asset), c.name): c for c in checks}

    @multi_asset_check(name=f"{suite.name}_mart_checks", can_subset=True,
                       specs=[AssetCheckSpec(c.name, asset=c.asset, description=c.description) for c in checks])
    def _checks(context: AssetCheckExecutionContext, lhl: LhlHome) -> Iterator[AssetCheckResult]:
        with read_warehouse(lhl.home()) as con:
            for key, check in by_key.items():
                if key in context.selected_asset_check_keys:
                    yield to_check_result(check.check(con), named=True, lhl=lhl, asset=check.asset)

    return _checks


def _job_partition(job: Job, key: str) -> tuple[Home, str, int | None] | None:
    """The home named by LHL_HOME (as `lhl ui` and `lhl daemon` set it) and a backfill's partition."""
    home = Home.resolve(None)
    if not home.root.exists():
        return None
    if job.partitioning == "model_run":
        definition = job_partitions(*suite_job(job.name))
        assert isinstance(definition, MultiPartitionsDefinition)
        model, run = model_and_run(definition.get_partition_key_from_str(key))
        return home, model, run
    return home, key, None


def backfill_run_config(job: Job, key: str) -> dict[str, Any]:
    """A partition's run config for a backfill: the job's default for it in the home named by LHL_HOME."""
    from lhl_platform.registry import RegistryError

    found = _job_partition(job, key)
    if found is None or job.run_config is None:
        return {}
    try:
        return ops_config(job.run_config(*found))
    except RegistryError:
        return {}  # not registered in this home: the stages resolve their defaults when the run starts


def backfill_tags(job: Job, key: str) -> dict[str, str]:
    from lhl_platform.registry import RegistryError

    found = _job_partition(job, key)
    if found is None or job.tags is None:
        return {}
    try:
        return job.tags(*found)
    except RegistryError:
        return {}


def _backfill_config(suite: Suite, job: Job) -> PartitionedConfig[Any]:
    return PartitionedConfig(partitions_def=job_partitions(suite, job),
                             run_config_for_partition_key_fn=lambda key: backfill_run_config(job, key),
                             tags_for_partition_key_fn=lambda key: backfill_tags(job, key))


def ops_config(per_stage: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per-stage config values as a Dagster run config."""
    return {"ops": {stage: {"config": values} for stage, values in per_stage.items()}} if per_stage else {}


def asset_job(suite: Suite, job: Job) -> UnresolvedAssetJobDefinition:
    # A job backfill from the UI asks the partitioned config for each partition: the same run config and tags as
    # the CLI's launches of that job.
    config = _backfill_config(suite, job) if job.partitioning != "none" and (job.run_config or job.tags) else None
    return define_asset_job(job.name, selection=[AssetKey(s) for s in job.stages],
                            partitions_def=job_partitions(suite, job), executor_def=in_process_executor,
                            config=config, description=job.description)


def suite_definitions(suite: Suite) -> tuple[list[AssetsDefinition], list[AssetChecksDefinition],
                                             list[UnresolvedAssetJobDefinition | JobDefinition]]:
    return ([stage_asset(suite, s) for s in suite.stages], _mart_check_steps(suite),
            [asset_job(suite, j) for j in suite.jobs])


def _mart_check_steps(suite: Suite) -> list[AssetChecksDefinition]:
    checks = mart_checks(suite)
    return [mart_checks_step(suite, checks)] if checks else []


def partition_key(job: Job, model: str, run: int | None) -> MultiPartitionKey | str | None:
    if job.partitioning == "model_run":
        return MultiPartitionKey({"model": model, "run": str(run)})
    return model if job.partitioning == "model" else None
