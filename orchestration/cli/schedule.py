"""`lhl schedule list|enable|disable NAME` and `lhl daemon`: sensors and schedules without the UI.

The switches are the Dagster instance's own (the state the UI's toggles write), kept in `<home>/dagster`, so
`lhl ui`, `lhl daemon` and `dagster dev` on this home all honour them. `lhl daemon` runs the Dagster daemon for
this home in the foreground, headless: sensors, schedules, the run queue, backfills and declarative automation.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError

if TYPE_CHECKING:
    from dagster import DagsterInstance

CODE_LOCATION = "orchestration.definitions"


@contextmanager
def _repository(home: Home) -> Iterator[tuple[DagsterInstance, Any]]:
    """The home's instance and this code location's repository, loaded in-process under the name the daemon
    and the UI give it (instigator state is keyed by location, repository and name)."""
    from dagster._core.remote_origin import InProcessCodeLocationOrigin
    from dagster._core.types.loadable_target_origin import LoadableTargetOrigin

    from orchestration.launch import _home_env, instance_for

    instance = instance_for(home)
    origin = InProcessCodeLocationOrigin(
        loadable_target_origin=LoadableTargetOrigin(executable_path=sys.executable, module_name=CODE_LOCATION),
        location_name=CODE_LOCATION)
    try:
        with _home_env(home), origin.create_location(instance) as location:
            yield instance, next(iter(location.get_repositories().values()))
    finally:
        instance.dispose()


def _status(instance: DagsterInstance, instigator: Any) -> str:
    state = instance.get_instigator_state(instigator.get_remote_origin_id(), instigator.selector_id)
    status = str(instigator.get_current_instigator_state(state).status.value).lower()
    return "running" if status == "declared_in_code" else status  # on by default in the code


def _last_tick(instance: DagsterInstance, instigator: Any) -> str:
    ticks = instance.get_ticks(instigator.get_remote_origin_id(), instigator.selector_id, limit=1)
    if not ticks:
        return "never ticked"
    tick = ticks[0]
    when = datetime.fromtimestamp(tick.timestamp, UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    reason = f" ({tick.skip_reason})" if tick.skip_reason else ""
    runs = f", {len(tick.run_ids)} run(s)" if tick.run_ids else ""
    return f"last tick {when}: {tick.status.value.lower()}{runs}{reason}"


def _find(repository: Any, name: str) -> tuple[str, Any]:
    if repository.has_sensor(name):
        return "sensor", repository.get_sensor(name)
    if repository.has_schedule(name):
        return "schedule", repository.get_schedule(name)
    known = sorted([s.name for s in repository.get_sensors()] + [s.name for s in repository.get_schedules()])
    raise CliError(f"no sensor or schedule named {name!r}; known: {', '.join(known)}")


def cmd_schedule_list(args: argparse.Namespace, home: Home) -> int:
    with _repository(home) as (instance, repository):
        rows = []
        for sensor in sorted(repository.get_sensors(), key=lambda s: s.name):
            every = f"every {sensor.min_interval_seconds}s" if sensor.min_interval_seconds else "sensor"
            rows.append((sensor.name, "sensor", every, _status(instance, sensor), _last_tick(instance, sensor)))
        for sched in sorted(repository.get_schedules(), key=lambda s: s.name):
            rows.append((sched.name, "schedule", f"cron {sched.cron_schedule}", _status(instance, sched),
                         _last_tick(instance, sched)))
    width = max(len(r[0]) for r in rows)
    for name, kind, every, status, tick in rows:
        print(f"{name:<{width}}  {kind:<8}  {status:<8}  {every:<16}  {tick}")
    print("Sensors and schedules run while `lhl daemon` (or `lhl ui`) runs for this home.")
    return 0


def cmd_schedule_switch(args: argparse.Namespace, home: Home) -> int:
    enable = args.schedule_command == "enable"
    with _repository(home) as (instance, repository):
        kind, instigator = _find(repository, args.name)
        if kind == "sensor":
            if enable:
                instance.start_sensor(instigator)
            else:
                instance.stop_sensor(instigator.get_remote_origin_id(), instigator.selector_id, instigator)
        elif enable:
            instance.start_schedule(instigator)
        else:
            instance.stop_schedule(instigator.get_remote_origin_id(), instigator.selector_id, instigator)
        status = _status(instance, instigator)
    print(f"{kind} {args.name}: {status} (takes effect in `lhl daemon` / `lhl ui` for {home.root})")
    return 0


def daemon_command() -> list[str]:
    return [sys.executable, "-m", "dagster._daemon", "run", "-m", CODE_LOCATION, "--log-level", "warning"]


def daemon_env(home: Home) -> dict[str, str]:
    return {**os.environ, "DAGSTER_HOME": str(home.dagster_dir), "LHL_HOME": str(home.root)}


def cmd_daemon(args: argparse.Namespace, home: Home) -> int:
    from orchestration.launch import instance_for
    from orchestration.ui_process import run_process_tree

    instance_for(home).dispose()  # writes the local instance settings on first use
    print(f"Dagster daemon for {home.root} (sensors, schedules, run queue, backfills); Ctrl-C or SIGTERM stops it",
          flush=True)
    return run_process_tree(daemon_command(), env=daemon_env(home), stdin=subprocess.DEVNULL)


def register(cli: Cli) -> None:
    cli.group("schedule", "sensors and schedules of this home, without the UI")
    cli.add("list", cmd_schedule_list, "list sensors and schedules with their status and last tick", "schedule")
    for verb, what in (("enable", "switch a sensor or schedule on"), ("disable", "switch a sensor or schedule off")):
        p = cli.add(verb, cmd_schedule_switch, what, "schedule")
        p.add_argument("name", help="e.g. recurring_audit_sensor, nightly_metrics_schedule")
    cli.add("daemon", cmd_daemon, "run the Dagster daemon for this home in the foreground (headless): sensors, "
            "schedules, queued runs")
