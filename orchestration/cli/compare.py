"""`lhl compare A B`: two models paired on the contracts and runs both have, with paired bootstrap intervals."""

from __future__ import annotations

import argparse

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError, write_out
from orchestration.cli.suites import add_gold_option, add_suite_option, chosen_suite, suite_scope


def cmd_compare(args: argparse.Namespace, home: Home) -> int:
    if not home.events.has_events():
        raise CliError(f"nothing to compare in {home.root}: run `lhl demo`, `lhl audit` or `lhl import outcomes`")
    if args.resamples < 1:
        raise CliError("--resamples must be at least 1")
    suite = chosen_suite(args)
    reporting, request, asked = suite_scope(args, suite)
    text = reporting.compare(home, suite, args.a, args.b, request, asked, force=args.force, fmt=args.format)
    write_out(text, args.out, f"{args.format} comparison")
    return 0


def register(cli: Cli) -> None:
    p = cli.add("compare", cmd_compare,
                "two models paired on shared contracts and runs: a, b, a - b and a contract-cluster 95%% interval")
    p.add_argument("a", help="first model (diff is a - b)")
    p.add_argument("b", help="second model")
    p.add_argument("--corpus", help="corpus id or name (default: the active corpus)")
    p.add_argument("--subset", help="only the contracts of this stored subset")
    p.add_argument("--runs", help="comma-separated runs (default: every audited run)")
    p.add_argument("--judge", help="the judge whose verdicts count (default: the primary judge)")
    add_suite_option(p)
    add_gold_option(p)
    p.add_argument("--format", choices=["table", "json", "md"], default="table")
    p.add_argument("--out", help="write to FILE instead of stdout")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--force", action="store_true",
                   help="compare even though the scope's judge failed its validation (its figures are marked)")
