"""The command tree's frame: parser, command groups, `--home`, and one-line errors with exit codes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from pydantic import ValidationError

from lhl_platform.domain.errors import one_line
from lhl_platform.home import Home

Command = Callable[[argparse.Namespace, Home], int]
HOME_HELP = "home folder (env LHL_HOME, default ./.lhl)"


class CliError(Exception):
    """A failure to report as one line on stderr."""


class Cli:
    def __init__(self) -> None:
        self.parser = argparse.ArgumentParser(
            prog="lhl", description="LegalHalluLens: typed hallucination audits of contract clause extraction.")
        self.parser.add_argument("--home", help=HOME_HELP)
        self.commands = self.parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
        self.groups: dict[str, argparse._SubParsersAction[argparse.ArgumentParser]] = {}

    def group(self, name: str, help: str) -> argparse._SubParsersAction[argparse.ArgumentParser]:
        if name not in self.groups:
            sub = self.commands.add_parser(name, help=help, description=help)
            self.groups[name] = sub.add_subparsers(dest=f"{name}_command", required=True, metavar="COMMAND")
        return self.groups[name]

    def add(self, name: str, func: Command, help: str, group: str | None = None) -> argparse.ArgumentParser:
        return self.add_to(self.groups[group] if group else self.commands, name, func, help)

    def add_to(self, where: argparse._SubParsersAction[argparse.ArgumentParser], name: str, func: Command,
               help: str) -> argparse.ArgumentParser:
        p = where.add_parser(name, help=help, description=help)
        p.add_argument("--home", default=argparse.SUPPRESS, help=HOME_HELP)
        p.set_defaults(func=func)
        return p

    def run(self, argv: Sequence[str] | None = None) -> int:
        args = self.parser.parse_args(argv)
        home = Home.resolve(getattr(args, "home", None))
        try:
            code: int = args.func(args, home)
            return code
        except KeyboardInterrupt:
            print("lhl: interrupted", file=sys.stderr)
            return 130
        except ValidationError as exc:
            print(f"lhl: {one_line(exc)}", file=sys.stderr)
            return 1
        except (CliError, ValueError, OSError, RuntimeError, LookupError) as exc:
            message = " ".join(str(exc).split()) or type(exc).__name__
            print(f"lhl: {message}", file=sys.stderr)
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
        Path(out).write_text(text)
        print(f"wrote {what} to {out}")
    else:
        sys.stdout.write(text)
