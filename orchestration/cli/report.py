"""`lhl report`: the audit's results as tables, JSON, CSV, Markdown or one self-contained HTML file, for the
clause suite (the default) or any suite with `--suite` (every JSON report names its `"suite"`); `--schema` prints
the JSON schema of every result row, from the suite's reporting (the clause suite's; the others refuse it)."""

from __future__ import annotations

import argparse

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError, write_out
from orchestration.cli.suites import add_gold_option, add_suite_option, chosen_suite, suite_scope


def cmd_report(args: argparse.Namespace, home: Home) -> int:
    suite = chosen_suite(args)
    if args.schema:  # a reporting that takes --schema gives its rows' schema; the others refuse it in suite_scope
        reporting, _, _ = suite_scope(args, suite)
        import json

        write_out(json.dumps(reporting.rows_schema(suite), indent=2), args.out, "JSON schema")
        return 0
    reporting, request, asked = suite_scope(args, suite)

    def render() -> str:
        if not home.events.has_events():
            raise CliError(f"nothing to report in {home.root}: run `lhl demo`, `lhl audit` or `lhl import outcomes`")
        return reporting.render(reporting.build(home, suite, request, asked, args.format), suite, args.format)

    from lhl_platform.report.served import served_report

    # what the text depends on beside the build and the code: every option of the command but where it goes (an
    # option of another kind than these is never a key: the report is then rendered every time)
    options = {k: v for k, v in vars(args).items() if k not in NOT_IN_THE_TEXT and not callable(v)}
    plain = all(v is None or isinstance(v, str | int | float | bool) for v in options.values())
    text = served_report(home, {"suite": suite.name, **options}, render) if plain else render()
    write_out(text, args.out, f"{args.format} report of suite {suite.name}")
    return 0


NOT_IN_THE_TEXT = ("out", "home")


def add_scope_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", help="corpus id or name (default: the active corpus, the one ingested last)")
    p.add_argument("--subset", help="only the contracts of this stored subset")
    p.add_argument("--runs", help="comma-separated runs (default: every audited run)")
    p.add_argument("--models", help="comma-separated models (default: every model with outcomes in scope)")
    p.add_argument("--judge", help="the judge whose verdicts count (default: the primary judge)")
    add_suite_option(p)
    add_gold_option(p)


def register(cli: Cli) -> None:
    rep = cli.add("report", cmd_report, "leaderboard, per-run, typed profiles, gaps, RDI intervals, composite ranks")
    add_scope_options(rep)
    rep.add_argument("--format", choices=["table", "json", "csv", "md", "html"], default="table",
                     help="html: one self-contained file with figures (best with --out FILE)")
    rep.add_argument("--out", help="write to FILE instead of stdout")
    rep.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    rep.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    rep.add_argument("--scheme", help="the composite scheme the verdict ranks by (clause suite; default: equal; "
                     "docs/method.md, section 9)")
    rep.add_argument("--bootstrap", choices=["instance", "contract"], default="instance",
                     help="resampling unit for the intervals: instances (default) or contracts")
    rep.add_argument("--schema", action="store_true",
                     help="print the JSON schema of every result row (the marts' row classes) and exit")
