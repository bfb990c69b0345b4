"""`python -m orchestration.webserver`: dagster-webserver behind the loopback guard (`orchestration/ui_guard.py`).

It takes every option of `dagster-webserver` (`-m orchestration.definitions -h 127.0.0.1 -p 3000`, `-w
workspace.yaml`, ...) and serves the same Starlette app, wrapped in `LoopbackGuard`, in this process.
`lhl ui` runs it with `--with-daemon`, which also starts the Dagster daemon for the same home (what `dagster
dev` did; its webserver cannot be wrapped, since `dagster dev` starts `python -m dagster_webserver`
itself) and stops it when the webserver ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from typing import Any

import click
import uvicorn
from dagster._cli.utils import assert_no_remaining_opts, get_possibly_temporary_instance_for_cli
from dagster._cli.workspace.cli_target import workspace_opts_to_load_target
from dagster._core.instance import InstanceRef
from dagster._core.workspace.context import WorkspaceProcessContext
from dagster._serdes import deserialize_value
from dagster._utils import find_free_port, is_port_in_use
from dagster._utils.interrupts import setup_interrupt_handlers
from dagster._utils.log import configure_loggers
from dagster_shared.cli import WorkspaceOpts
from dagster_shared.ipc import interrupt_on_ipc_shutdown_message
from dagster_webserver.app import create_app_from_workspace_process_context
from dagster_webserver.cli import DEFAULT_WEBSERVER_PORT, dagster_webserver
from dagster_webserver.version import __version__

from orchestration.ui_guard import LoopbackGuard

LOGGER = "dagster-webserver"
DAEMON_GRACE_S = 20.0
MAX_PORT = 65535


@contextlib.asynccontextmanager
async def _lifespan(app: Any) -> AsyncIterator[None]:
    try:
        yield
    except asyncio.CancelledError:  # uvicorn cancels the lifespan on Ctrl-C / SIGTERM: an orderly end
        logging.getLogger(LOGGER).info("webserver shut down")


@contextlib.contextmanager
def _daemon(enabled: bool) -> Iterator[None]:
    """The Dagster daemon for the same home (DAGSTER_HOME), running while the webserver does."""
    if not enabled:
        yield
        return
    from orchestration.cli.schedule import daemon_command

    process = subprocess.Popen(daemon_command(), env=dict(os.environ), stdin=subprocess.DEVNULL)
    try:
        yield
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=DAEMON_GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def serve(host: str, port: int | None, path_prefix: str, db_statement_timeout: int, db_pool_recycle: int,
          db_pool_max_overflow: int, read_only: bool, suppress_warnings: bool, uvicorn_log_level: str,
          dagster_log_level: str, log_format: str, code_server_log_level: str, instance_ref: str | None,
          live_data_poll_rate: int, shutdown_pipe: int | None, with_daemon: bool, **other_opts: Any) -> None:
    """dagster-webserver's own start-up (dagster_webserver.cli), with the app served behind the guard."""
    workspace_opts = WorkspaceOpts.extract_from_cli_options(other_opts)
    assert_no_remaining_opts(other_opts)
    if suppress_warnings:
        os.environ["PYTHONWARNINGS"] = "ignore"
    configure_loggers(formatter=log_format, log_level=dagster_log_level.upper())
    logger = logging.getLogger(LOGGER)
    setup_interrupt_handlers()
    if port is not None and not 0 <= port <= MAX_PORT:  # the OS would take it modulo 65536: another port
        raise click.BadParameter(f"{port} is not a TCP port (1 to {MAX_PORT})", param_hint="'--port' / '-p'")
    if not port:  # chosen before the guard is built: it checks the port the browser names
        port = find_free_port() if is_port_in_use(host, DEFAULT_WEBSERVER_PORT) else DEFAULT_WEBSERVER_PORT
    with contextlib.ExitStack() as stack:
        if shutdown_pipe:
            stack.enter_context(interrupt_on_ipc_shutdown_message(shutdown_pipe))
        instance = stack.enter_context(get_possibly_temporary_instance_for_cli(
            cli_command="dagster-webserver", logger=logger,
            instance_ref=deserialize_value(instance_ref, InstanceRef) if instance_ref else None))
        instance.optimize_for_webserver(db_statement_timeout, db_pool_recycle, db_pool_max_overflow)
        context = stack.enter_context(WorkspaceProcessContext(
            instance, version=__version__, read_only=read_only,
            workspace_load_target=workspace_opts_to_load_target(workspace_opts),
            code_server_log_level=code_server_log_level))
        stack.enter_context(_daemon(with_daemon))
        app = create_app_from_workspace_process_context(context, path_prefix, live_data_poll_rate, lifespan=_lifespan)
        shown = f"[{host}]" if ":" in host else host
        logger.info(f"Serving dagster-webserver (loopback guard on) on http://{shown}:{port}{path_prefix} "
                    f"in process {os.getpid()}")
        uvicorn.run(LoopbackGuard(app, host, port), host=host, port=port, log_level=uvicorn_log_level)


command = click.Command(
    name="lhl-webserver", callback=serve, help="dagster-webserver behind a guard against cross-site requests and "
    "DNS rebinding (see orchestration/ui_guard.py); takes dagster-webserver's options.",
    params=[*dagster_webserver.params,
            click.Option(["--with-daemon"], is_flag=True, help="also run the Dagster daemon (what `lhl ui` does)")])


def main() -> None:
    command(auto_envvar_prefix="DAGSTER_WEBSERVER")


if __name__ == "__main__":
    main()
