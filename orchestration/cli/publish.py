"""`lhl publish URL`: write the report's tables, with scope and provenance, to any SQLAlchemy database."""

from __future__ import annotations

import argparse
import sys

from lhl_platform.domain.text import printable
from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError
from orchestration.cli.report import add_scope_options, scope_request
from orchestration.cli.suites import chosen_suite, suite_request


def cmd_publish(args: argparse.Namespace, home: Home) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from lhl_platform.report.build import build_report_with_checks
    from lhl_platform.report.publish import masked, publish, resolve_url

    if not home.events.has_events():
        raise CliError(f"nothing to publish in {home.root}: run `lhl demo`, `lhl audit` or `lhl import outcomes`")
    url = resolve_url(args.url)  # before any work: a missing URL is a one-line error
    suite = chosen_suite(args)
    try:
        if suite is not None:
            from lhl_platform.report.suite_publish import publish_suite
            from lhl_platform.report.suite_report import build_suite_report

            suite_report = build_suite_report(home, suite, suite_request(args, suite))
            _refuse_if_strict([(c.name, c.summary) for c in suite_report.checks if not c.passed], args.strict)
            summary = publish_suite(suite_report, suite, url)
        else:
            report, checks = build_report_with_checks(home, scope_request(args), resamples=args.resamples,
                                                      seed=args.seed, cluster=args.bootstrap == "contract")
            failing = [c for c in checks if not c.passed]
            named = "; ".join(f"{c.name}: {c.summary}" for c in failing)
            _refuse_if_strict([(c.name, c.summary) for c in failing], args.strict)
            summary = publish(report, url, checks=checks)
            if failing:  # published with the rows (publication_checks); a reader must not miss them either
                print(f"lhl: warning: {len(failing)} check(s) fail in this scope, published with the rows in "
                      f"publication_checks (--strict refuses to publish): {printable(named)}", file=sys.stderr)
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise CliError(f"publishing to {masked(url)} failed: {reason}") from None
    total = sum(summary.rows.values())
    tables = ", ".join(f"{name} {n}" for name, n in summary.rows.items() if n)
    print(f"published scope {summary.scope_key} to {summary.url}: {total} rows ({tables}); "
          f"replaced {summary.replaced} earlier rows of this scope")
    return 0


def _refuse_if_strict(failing: list[tuple[str, str]], strict: bool) -> None:
    """--strict publishes nothing while a check fails (a judge that failed its validation, or has none, among them)."""
    if failing and strict:
        named = "; ".join(f"{name}: {summary}" for name, summary in failing)
        raise CliError(f"not published (--strict): {len(failing)} check(s) fail in this scope: {named}")


def register(cli: Cli) -> None:
    p = cli.add("publish", cmd_publish,
                "write the report's tables with scope and provenance to a SQLAlchemy database (replaces the scope's "
                "earlier rows in one transaction)")
    p.add_argument("url", nargs="?",
                   help="SQLAlchemy URL, e.g. sqlite:///lhl.db or postgresql://user@host/db (default: env "
                        "LHL_PUBLISH_URL; a password may come from LHL_PUBLISH_PASSWORD or PGPASSWORD; never stored)")
    add_scope_options(p)
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--bootstrap", choices=["instance", "contract"], default="instance",
                   help="resampling unit for the intervals: instances (default) or contracts")
    p.add_argument("--strict", action="store_true",
                   help="publish nothing (non-zero exit) when a check fails; by default the check results are "
                        "published with the rows and a failing one is a warning")
