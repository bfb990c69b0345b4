"""`lhl suites` and the suites' own commands: every registered suite, its item sets, and what it adds to `lhl`.

`--suite NAME` on `lhl report`, `lhl compare`, `lhl publish` and `lhl audit` picks a suite other than the clause
suite (the default); the helpers here resolve it and its scope options, so each of those commands stays one
function.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError, parse_list, parse_runs

if TYPE_CHECKING:
    from lhl_platform.suites.contract import Command, Suite
    from lhl_platform.suites.declared import DeclaredCommands
    from lhl_platform.suites.reporting import Asked, Reporting

DEFAULT_SUITE = "clause"  # what `--suite` names when it is not given


def chosen_suite(args: argparse.Namespace) -> Suite:
    """The suite `--suite` names (default: the clause suite)."""
    from lhl_platform.suites import get_suite

    return get_suite(getattr(args, "suite", None) or DEFAULT_SUITE)


def asked(args: argparse.Namespace) -> Asked:
    """What the command line asks of a suite's report: every scope and report option the command defines (None
    where not given), one request type for every suite."""
    from lhl_platform.suites.reporting import Asked

    values = {name: getattr(args, name, None) for name in ("judge", "corpus", "subset", "item_set", "gold_version",
                                                           "scheme")}
    runs, models = getattr(args, "runs", None), getattr(args, "models", None)
    bootstrap = {k: getattr(args, k) for k in ("resamples", "seed") if getattr(args, k, None) is not None}
    return Asked(**values, **bootstrap, runs=tuple(parse_runs(runs)) if runs else None,
                 models=tuple(parse_list(models, "models")) if models else None,
                 cluster=True if getattr(args, "bootstrap", None) == "contract" else None,
                 rows_schema=True if getattr(args, "schema", False) else None)


def suite_scope(args: argparse.Namespace, suite: Suite) -> tuple[Reporting, Any, Asked]:
    """The suite's reporting, its scope request and what was asked; a suite with no report of its own, or an
    option it does not take, refused in one line naming the suite."""
    from lhl_platform.report.reporting import scoped

    wanted = asked(args)
    try:
        reporting, request = scoped(suite, wanted)
    except (LookupError, ValueError) as exc:
        raise CliError(str(exc)) from None
    return reporting, request, wanted


def add_gold_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gold-version", dest="gold_version", type=int, help="a suite's gold version (`lhl review`; "
                   "default: the latest)")


def add_suite_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", help="the suite (default: clause); see `lhl suites`")
    p.add_argument("--item-set", dest="item_set", help="a suite's item set (default: the one audited last)")


def cmd_suites(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.report.reporting import reporting_of
    from lhl_platform.suites import suites

    for suite in suites():
        print(f"{suite.name:<14} {suite.title}")
        print(f"{'':<14} {suite.description}")
        stages = ", ".join(f"{s.name} ({s.kind})" for s in suite.stages if s.partitioning != "none")
        if stages:
            print(f"{'':<14} stages per partition: {stages}")
        sets = suite.item_sets(home) if home.root.exists() else []
        for item_set in sets:
            label = "self-built" if item_set.self_built else "external"
            named = f"{item_set.name} ({item_set.id})" if item_set.name else item_set.id
            print(f"{'':<14} item set {named}: {item_set.items} items ({label}; {item_set.source})")
        if not sets:
            print(f"{'':<14} no item set stored in {home.root}")
        try:
            reporting_of(suite)
        except LookupError as elsewhere:  # a suite without a report of its own: where its results are
            print(f"{'':<14} {elsewhere}")
        commands = ", ".join("lhl " + " ".join(c.path) for c in suite.commands)
        if commands:
            print(f"{'':<14} commands: {commands}")
    return 0


def register(cli: Cli) -> None:
    """The suites' commands: those of the catalog's suites declared (`lhl_platform.catalog_commands`: their module
    is imported when a command line reaches one of their groups), those of a suite registered at run time added
    from `Suite.commands`."""
    from lhl_platform.catalog_commands import DECLARED
    from lhl_platform.suites import suites

    cli.add("suites", cmd_suites, "the suites the platform runs, their item sets and commands")
    # The review of any suite's gold (`lhl review ...`, --suite): loaded when a command line reaches it.
    cli.declare("review", "review a suite's gold: sheets, decisions, gold versions and agreement", _review(cli))
    declared = {d.suite for d in DECLARED}
    for d in DECLARED:
        for word in d.words:
            cli.declare(word, f"{word} commands of the {d.title} suite", _loader(cli, d, word))
    for suite in suites():
        if suite.name not in declared:
            add_commands(cli, suite.title, suite.commands)


def _review(cli: Cli) -> Callable[[], None]:
    def load() -> None:
        from lhl_platform.review.commands import COMMANDS

        add_commands(cli, "review", COMMANDS)

    return load


def _loader(cli: Cli, declared: DeclaredCommands, word: str) -> Callable[[], None]:
    def load() -> None:  # when a command line reaches `lhl WORD`: the module defining the commands is imported
        add_commands(cli, declared.title, [c for c in declared.load() if c.path[0] == word])

    return load


def add_commands(cli: Cli, title: str, commands: Sequence[Command]) -> None:
    for command in commands:
        *group, name = command.path
        if group:
            cli.group(group[0], f"{group[0]} commands of the {title} suite")
        p = cli.add(name, _then_jobs(command), command.help, group=group[0] if group else None)
        command.define(p)


def _then_jobs(command: Command) -> Callable[[argparse.Namespace, Home], int]:
    """The command's handler, followed (when it succeeded) by the jobs it names, each executed as every CLI run is."""
    if command.then_jobs is None:
        return command.handler
    after = command.then_jobs

    def run(args: argparse.Namespace, home: Home) -> int:
        code = command.handler(args, home)
        if code == 0:
            from orchestration.launch import execute, instance_for
            from orchestration.runs import find_job, job_launch

            instance = instance_for(home)
            try:
                for name in after(args, home):
                    execute(home, instance, job_launch(home, name, "cli", what=f"the {name} job"))
                    print(f"materialized {', '.join(find_job(name).stages)} (job {name})")
            finally:
                instance.dispose()
        return code

    return run
