"""`lhl`: one command tree, one module per command group; each command calls plain domain functions.

Every command takes `--home DIR` (env `LHL_HOME`, default `./.lhl`). Exit code 0 on success; on failure a
one-line reason on stderr and a non-zero code. The tree is built from light modules: heavy imports happen inside
commands, a suite's commands load when a command line reaches them, and the application (every suite
registered, `lhl_platform.catalog`) is assembled only when a command runs, so `lhl --help` starts quickly
(benchmarks/startup.py).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from orchestration.cli.app import Cli, CliError

__all__ = ["Cli", "CliError", "build_cli", "main"]


def build_cli() -> Cli:
    from orchestration.cli import (
        audit,
        compare,
        corpus,
        debate,
        judge,
        models,
        monitor,
        ops,
        publish,
        report,
        schedule,
        suites,
    )

    cli = Cli()
    for group in (corpus, models, audit, debate, report, monitor, compare, publish, judge, ops, schedule, suites):
        group.register(cli)
    return cli


def main(argv: Sequence[str] | None = None) -> int:
    return build_cli().run(argv)


if __name__ == "__main__":
    sys.exit(main())
