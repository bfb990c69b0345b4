"""`lhl publish URL`: write the report's tables, with scope and provenance, to any SQLAlchemy database."""

from __future__ import annotations

import argparse
import sys

from lhl_platform.domain.text import printable
from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError
from orchestration.cli.report import add_scope_options
from orchestration.cli.suites import chosen_suite, suite_scope


def cmd_publish(args: argparse.Namespace, home: Home) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from lhl_platform.report.publish import masked, resolve_url

    if not home.events.has_events():
        raise CliError(f"nothing to publish in {home.root}: run `lhl demo`, `lhl audit` or `lhl import outcomes`")
    url = resolve_url(args.url)  # before any work: a missing URL is a one-line error
    suite = chosen_suite(args)
    reporting, request, asked = suite_scope(args, suite)
    try:
        built = reporting.build(home, suite, request, asked)
        failing = reporting.failing(built)
        _refuse_if_strict(failing, args.strict)
        summary = reporting.publish(built, suite, url)
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise CliError(f"publishing to {masked(url)} failed: {reason}") from None
    if failing:  # published with the rows (their check results); a reader must not miss them either
        named = "; ".join(f"{name}: {what}" for name, what in failing)
        print(f"lhl: warning: {len(failing)} check(s) fail in this scope, published with the rows and the check "
              f"results (--strict refuses to publish): {printable(named)}", file=sys.stderr)
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
