"""The command tree's frame: parser, command groups, `--home`, and one-line errors with exit codes.

Commands whose arguments live in a module not yet loaded (a suite's) are declared by their first word
(`Cli.declare`): the module is imported when a command line reaches that word, so `lhl --help` loads none of them.
A command that runs gets the application assembled first (`lhl_platform.catalog`: every suite's event types,
SQL and models registered before it reads or writes the home); help and argument errors exit before that.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from lhl_platform.files import OutputError, write_atomic
from lhl_platform.home import Home

Command = Callable[[argparse.Namespace, Home], int]
HOME_HELP = "home folder (env LHL_HOME, default ./.lhl)"


class _DeclaredSubParsers(argparse._SubParsersAction):  # type: ignore[type-arg]
    """Sub-commands some of whose arguments are defined on use: before a command line enters word W, the
    loaders declared for W run (each adds its commands), once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.loaders: dict[str, list[Callable[[], None]]] = {}

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if isinstance(values, list) and values:
            for load in self.loaders.pop(values[0], []):
                load()
        super().__call__(parser, namespace, values, option_string)


class CliError(Exception):
    """A failure to report as one line on stderr."""


class Cli:
    def __init__(self) -> None:
        self.parser = argparse.ArgumentParser(
            prog="lhl", description="LegalHalluLens: typed hallucination audits of contract clause extraction.")
        self.parser.add_argument("--home", help=HOME_HELP)
        self.commands = self.parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                                   action=_DeclaredSubParsers)
        self.groups: dict[str, argparse._SubParsersAction[argparse.ArgumentParser]] = {}

    def group(self, name: str, help: str) -> argparse._SubParsersAction[argparse.ArgumentParser]:
        if name not in self.groups:
            sub = self.commands.add_parser(name, help=help, description=help)
            self.groups[name] = sub.add_subparsers(dest=f"{name}_command", required=True, metavar="COMMAND")
        return self.groups[name]

    def add(self, name: str, func: Command, help: str, group: str | None = None) -> argparse.ArgumentParser:
        return self.add_to(self.groups[group] if group else self.commands, name, func, help)

    def declare(self, group: str, help: str, load: Callable[[], None]) -> None:
        """Commands of group `lhl GROUP ...` (made here with `help` unless it exists) that `load` adds when a
        command line reaches GROUP."""
        self.group(group, help)
        assert isinstance(self.commands, _DeclaredSubParsers)
        self.commands.loaders.setdefault(group, []).append(load)

    def add_to(self, where: argparse._SubParsersAction[argparse.ArgumentParser], name: str, func: Command,
               help: str) -> argparse.ArgumentParser:
        p = where.add_parser(name, help=help, description=help)
        p.add_argument("--home", default=argparse.SUPPRESS, help=HOME_HELP)
        p.set_defaults(func=func)
        return p

    def run(self, argv: Sequence[str] | None = None) -> int:
        args = self.parser.parse_args(argv)
        # Loaded once a command runs (help and argument errors exit above): pydantic and logging come with them.
        import lhl_platform.catalog  # noqa: F401  (the application assembled before a command reads the home)
        from lhl_platform.domain.redaction import install_log_redaction
        from orchestration.cli.errors import home_problem, report
        from orchestration.cli.terminal import guarded_output

        home = Home.resolve(getattr(args, "home", None))
        install_log_redaction()  # log records of this process (Dagster's included) are redacted too
        with guarded_output():
            problem = home_problem(home)
            if problem:
                print(f"lhl: {problem}", file=sys.stderr)
                return 1
            try:
                code: int = args.func(args, home)
                return code
            except KeyboardInterrupt:
                print("lhl: interrupted", file=sys.stderr)
                return 130
            except Exception as exc:  # every failure: one line, the traceback in the log
                print(f"lhl: {report(exc, home, args.command, (CliError, OutputError))}", file=sys.stderr)
                return 1


def parse_list(text: str, what: str) -> list[str]:
    items = list(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))
    if not items:
        raise CliError(f"--{what} needs at least one value")
    return items


def parse_runs(text: str) -> list[int]:
    """Comma-separated positive run numbers, each once, in the order given."""
    try:
        runs = list(dict.fromkeys(int(r) for r in parse_list(text, "runs")))
    except ValueError:
        raise CliError(f"--runs must be comma-separated integers, got {text!r}") from None
    if any(r < 1 for r in runs):
        raise CliError("--runs must be positive")
    return runs


def write_out(text: str, out: str | None, what: str) -> None:
    from pathlib import Path

    text = text if text.endswith("\n") else text + "\n"
    if out:
        write_atomic(Path(out), text.encode())  # whole or not at all: a full disk keeps the previous file
        print(f"wrote {what} to {out}")
    else:
        sys.stdout.write(text)
