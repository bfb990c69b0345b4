"""`lhl report`: the audit's results as tables, JSON, CSV, Markdown or one self-contained HTML file, for the
clause suite (the default) or any suite with `--suite` (every JSON report names its `"suite"`); `--schema` prints
the JSON schema of every result row."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError, parse_list, parse_runs, write_out
from orchestration.cli.suites import add_gold_option, add_suite_option, chosen_suite, suite_request

if TYPE_CHECKING:
    from lhl_platform.suites.contract import Suite
    from lhl_platform.warehouse.scope import ScopeRequest


def cmd_report(args: argparse.Namespace, home: Home) -> int:
    if args.schema:
        import json

        from lhl_platform.report.marts import schema_document

        write_out(json.dumps(schema_document(), indent=2), args.out, "JSON schema")
        return 0

    from lhl_platform.report.build import build_report, build_report_with_checks
    from lhl_platform.report.render import render_csv, render_json, render_text

    if not home.events.has_events():
        raise CliError(f"nothing to report in {home.root}: run `lhl demo`, `lhl audit` or `lhl import outcomes`")
    suite = chosen_suite(args)
    if suite is not None:
        if args.scheme is not None:
            raise CliError(f"--scheme chooses the clause suite's composite scheme; suite {suite.name} ranks by its "
                           "headline metric (docs/method.md, section 17)")
        write_out(_suite_report(args, home, suite), args.out, f"{args.format} report of suite {suite.name}")
        return 0
    request = scope_request(args)
    options = {"resamples": args.resamples, "seed": args.seed, "cluster": args.bootstrap == "contract"}
    scheme = verdict_scheme(args.scheme)
    if args.format == "csv":
        report, checks = build_report(home, request, **options), []
    else:  # with the check results, as every other format prints them
        report, checks = build_report_with_checks(home, request, **options)
    report.verdict_scheme = scheme
    if args.format == "json":
        text = render_json(report, checks)
    elif args.format == "csv":
        text = render_csv(report)
    elif args.format == "html":
        from lhl_platform.report.html import render_html

        text = render_html(report, checks)
    else:
        text = render_text(report, checks, markdown=args.format == "md")
    write_out(text, args.out, f"{args.format} report")
    return 0


def verdict_scheme(name: str | None) -> str:
    """The composite scheme `--scheme` names (default `equal`), or one line naming the schemes."""
    from lhl_platform.report.stats import SCHEMES

    if name is None:
        return "equal"
    if name not in SCHEMES:
        raise CliError(f"unknown composite scheme {name!r}; schemes: {', '.join(SCHEMES)}")
    return name


def _suite_report(args: argparse.Namespace, home: Home, suite: Suite) -> str:
    from lhl_platform.report.suite_report import (
        build_suite_report,
        render_suite_html,
        render_suite_json,
        render_suite_text,
    )

    if suite.scope is None:
        raise CliError(results_elsewhere(suite))
    request = suite_request(args, suite)
    report = build_suite_report(home, suite, request)
    if args.format == "json":
        return render_suite_json(report)
    if args.format == "csv":
        from lhl_platform.report.suite_csv import render_suite_csv

        return render_suite_csv(report)
    if args.format == "html":
        return render_suite_html(report, suite)
    return render_suite_text(report, markdown=args.format == "md")


def results_elsewhere(suite: Suite) -> str:
    """Where the results of a suite without a scope of its own are: the clause report's sections its stages
    record (LexFlip's judge validations), in every format."""
    from lhl_platform.report.rows import Report

    shown = [f"`{s.name}`" for s in suite.stages if s.name in Report.model_fields]
    where = (f"the {', '.join(shown)} section{'s' if len(shown) > 1 else ''} of `lhl report` (every format)"
             if shown else "`lhl report` (every format)")
    return (f"suite {suite.name} has no report of its own: it is computed in the clause suite's scope, and its "
            f"results are {where}")


def scope_request(args: argparse.Namespace) -> ScopeRequest:
    from lhl_platform.warehouse.scope import ScopeRequest

    return ScopeRequest(corpus=args.corpus, subset=args.subset, judge=args.judge,
                        runs=tuple(parse_runs(args.runs)) if args.runs else None,
                        models=tuple(parse_list(args.models, "models")) if args.models else None)


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
