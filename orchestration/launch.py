"""Launch the Definitions' own jobs for the CLI, on the home's Dagster instance (`<home>/dagster`).

There is one run path. Every run is a job of `orchestration.definitions` (`defs.resolve_job_def`) with a request
built by `orchestration.runs` (the same run config and tags the sensors, the schedule and job backfills use).
The embedded default executes that job in-process (`job.execute_in_process`), so `lhl demo` and `lhl audit`
need no daemon; `submit` instead queues the same request on the instance's run coordinator, for a deployment
whose daemon launches runs (queued per provider, on Kubernetes in production).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from dagster import AssetKey, DagsterInstance, JobDefinition

from lhl_platform.home import Home
from orchestration.failures import failure_detail
from orchestration.runs import Launch, find_job, job_launch, metrics_launch
from resources import LhlHome

if TYPE_CHECKING:
    from lhl_platform.suites.contract import Suite

Say = Callable[[str], None]
# Dagster's console keeps to critical messages in `lhl`'s own runs: a failed step is one line naming its cause
# (`failure_detail`), its traceback in the run's log; stages print their warnings themselves (`assets.suites`).
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
CODE_LOCATION = "orchestration.definitions"

# The embedded instance `lhl` keeps under <home>/dagster (deployments/local/dagster.yaml is the same text): SQLite
# storage under the home, no telemetry, and a run queue that lets the daemon run two runs at once but only one
# per provider. Written over the bare file `Home.ensure` creates, never over one you edited.
LOCAL_INSTANCE_YAML = """\
# Local (embedded) instance: what `lhl` creates under <home>/dagster. SQLite storage under the home, no telemetry.
# CLI runs execute in-process; runs the daemon launches (sensors, schedules, UI) wait in this queue.
telemetry:
  enabled: false
concurrency:
  runs:
    max_concurrent_runs: 2
    tag_concurrency_limits:
      - key: lhl/provider
        value:
          applyLimitPerUniqueValue: true
        limit: 1
"""
_BARE_INSTANCE_YAML = "telemetry:\n  enabled: false\n"


class LaunchError(RuntimeError):
    pass


def instance_for(home: Home) -> DagsterInstance:
    home.ensure()
    config = home.dagster_dir / "dagster.yaml"
    text = config.read_text()
    if text == _BARE_INSTANCE_YAML:
        text = LOCAL_INSTANCE_YAML
        config.write_text(text)
    if _own_storage(text):  # PostgreSQL or any storage a user configured: used as configured
        return DagsterInstance.from_config(str(home.dagster_dir))
    from dagster._core.instance.ref import InstanceRef

    from orchestration.event_log_storage import overrides

    # The default SQLite files, with the event log's connections kept open (`orchestration.event_log_storage`).
    events = os.path.join(home.dagster_dir, "history", "runs", "")
    return DagsterInstance.from_ref(InstanceRef.from_dir(str(home.dagster_dir), overrides=overrides(events)))


def _own_storage(config: str) -> bool:
    import yaml

    values = yaml.safe_load(config) or {}
    return any(key in values for key in ("storage", "run_storage", "event_log_storage", "schedule_storage"))


def job(name: str) -> JobDefinition:
    from orchestration.definitions import definitions

    return definitions().resolve_job_def(name)


def ensure_partitions(instance: DagsterInstance, models: Sequence[str], runs: Sequence[int]) -> None:
    from assets.partitions import add_partitions_once

    for name, keys in (("model", list(models)), ("run", [str(r) for r in runs])):
        add_partitions_once(instance, name, keys)


@contextlib.contextmanager
def _home_env(home: Home) -> Iterator[None]:
    """The code location reads LHL_HOME (job backfill config, resource defaults): point it at this home."""
    before = os.environ.get("LHL_HOME")
    os.environ["LHL_HOME"] = str(home.root)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("LHL_HOME", None)
        else:
            os.environ["LHL_HOME"] = before


def ensure_launch_partition(instance: DagsterInstance, launch: Launch) -> None:
    """The launch's model (and run) in its job's own partitions (`assets.partitions`)."""
    from assets.partitions import ensure_job_partition

    if launch.partition_key is not None:
        ensure_job_partition(instance, launch.job, launch.partition_key)


def execute(home: Home, instance: DagsterInstance, launch: Launch) -> Any:
    """Execute the Definitions' job in this process, recorded in the home's instance like any other run."""
    ensure_launch_partition(instance, launch)
    with _home_env(home):
        result = job(launch.job).execute_in_process(
            run_config={**QUIET, **launch.run_config}, instance=instance, partition_key=launch.partition_key,
            tags=launch.tags, resources={"lhl": LhlHome(path=str(home.root))}, raise_on_error=False)
    if not result.success:
        detail = failure_detail(result.all_events) or "see `lhl ui` for the run's logs"  # the cause, not the step
        raise LaunchError(f"{launch.what or launch.job} failed: {detail}")
    return result


def items_current(home: Home, instance: DagsterInstance, suite: Suite) -> bool:
    """Whether the suite's items job (`Suite.audit.items`) shows the home's items: its stage's latest
    materialization records what the suite says it shows (a home holding no items has nothing to record)."""
    items = suite.audit.items if suite.audit is not None else None
    if items is None:
        return True
    wanted = items.shows(home)
    if wanted is None:
        return True
    event = instance.get_latest_materialization_event(AssetKey(items.stage))
    materialization = event.asset_materialization if event is not None else None
    shown = {k: str(v.value) for k, v in materialization.metadata.items()} if materialization is not None else {}
    return all(shown.get(k) == str(v) for k, v in wanted.items())


def materialize_metrics(home: Home, instance: DagsterInstance) -> None:
    execute(home, instance, metrics_launch("cli"))


def run_metrics(home: Home, *, say: Say = print) -> None:
    """The SQL models, checks and drift, once, after runs that left them to their caller (`run_suite`'s `metrics`
    off: `lhl demo` builds them after every suite's runs)."""
    instance = instance_for(home)
    try:
        say("building the SQL models, checks and drift ...")
        materialize_metrics(home, instance)
    finally:
        instance.dispose()


def run_suite(home: Home, suite: Suite, launches: Sequence[Launch], *, say: Say = print, metrics: bool = True,
              then: Sequence[str] = ()) -> None:
    """A suite's partition runs in this process: its items job first when the items lag (after `lhl ingest`), each
    launch, the jobs named in `then` (not partitioned), then (unless a caller builds them later) the SQL models,
    checks and drift. The one path `lhl audit` and `lhl demo` take for every suite."""
    instance = instance_for(home)
    try:
        items = suite.audit.items if suite.audit is not None else None
        if items is not None and not items_current(home, instance, suite):
            say(f"recording {items.what} ...")
            execute(home, instance, job_launch(home, items.job, "cli", what=items.what))
        for step, launch in enumerate(launches, start=1):
            say(f"[{step}/{len(launches)}] {suite.name}: {launch.what} ...")
            execute(home, instance, launch)
        for name in then:
            say(f"{suite.name}: the {name} job: {find_job(name).description}")
            execute(home, instance, job_launch(home, name, "cli"))
        if metrics:
            say("building the SQL models, checks and drift ...")
            materialize_metrics(home, instance)
    finally:
        instance.dispose()


def submit(home: Home, launches: Sequence[Launch]) -> list[str]:
    """Queue these runs on the home's instance, for its daemon to launch (the run queue's tag limits apply);
    returns their run ids. The code location is loaded under the name the daemon gives it."""
    from dagster._core.definitions.selector import JobSubsetSelector
    from dagster._core.workspace.context import WorkspaceProcessContext
    from dagster._core.workspace.load_target import ModuleTarget

    from orchestration.definitions import defs

    instance = instance_for(home)
    ids: list[str] = []
    try:
        target = ModuleTarget(module_name=CODE_LOCATION, attribute=None, working_directory=None,
                              location_name=CODE_LOCATION)
        with _home_env(home), WorkspaceProcessContext(instance, target) as context:
            workspace = context.create_request_context()
            location = workspace.get_code_location(CODE_LOCATION)
            repository = next(iter(location.get_repositories().values()))
            for launch in launches:
                tags = dict(launch.tags)
                ensure_launch_partition(instance, launch)
                if launch.partition_key is not None:
                    partition_tags = defs.resolve_job_def(launch.job).get_tags_for_partition_key(
                        launch.partition_key, selected_asset_keys=None)
                    tags = {**partition_tags, **launch.tags}
                remote = location.get_job(JobSubsetSelector(location_name=location.name,
                                                            repository_name=repository.name,
                                                            job_name=launch.job, op_selection=None))
                plan = location.get_execution_plan(remote, launch.run_config, step_keys_to_execute=None,
                                                   known_state=None, instance=instance)
                run = instance.create_run(
                    job_name=remote.name, run_id=None, run_config=launch.run_config,
                    resolved_op_selection=remote.resolved_op_selection,
                    step_keys_to_execute=plan.execution_plan_snapshot.step_keys_to_execute, op_selection=None,
                    status=None, root_run_id=None, parent_run_id=None, tags={**remote.tags, **tags},
                    job_snapshot=remote.job_snapshot, execution_plan_snapshot=plan.execution_plan_snapshot,
                    parent_job_snapshot=remote.parent_job_snapshot, remote_job_origin=remote.get_remote_origin(),
                    job_code_origin=remote.get_python_origin(), asset_selection=None, asset_check_selection=None,
                    asset_graph=repository.asset_graph)
                ids.append(instance.submit_run(run.run_id, workspace).run_id)
    finally:
        instance.dispose()
    return ids
