"""`lhl verify` and `lhl ui`: the evidence and the Dagster UI for this home."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError


def cmd_verify(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.events.verify import verify_log

    report = verify_log(home.events)
    if not report.ok:
        raise CliError(f"event log altered: {report.problem}")
    print(f"event log intact: {report.streams} streams, {report.segments} segments, {report.events} events")
    return 0


def cmd_ui(args: argparse.Namespace, home: Home) -> int:
    home.ensure()
    env = {**os.environ, "DAGSTER_HOME": str(home.dagster_dir), "LHL_HOME": str(home.root)}
    command = [sys.executable, "-m", "dagster", "dev", "-m", "orchestration.definitions",
               "--host", args.host, "--port", str(args.port)]
    print(f"Dagster UI for {home.root} on http://{args.host}:{args.port} (Ctrl-C to stop)", flush=True)
    try:
        return subprocess.call(command, env=env)
    except KeyboardInterrupt:
        return 0


def register(cli: Cli) -> None:
    cli.add("verify", cmd_verify, "check the event log's hash chain; non-zero exit when anything was altered")
    ui = cli.add("ui", cmd_ui, "the Dagster UI for this home (lineage, partitions, checks, schedules)")
    ui.add_argument("--host", default="127.0.0.1")
    ui.add_argument("--port", type=int, default=3000)
