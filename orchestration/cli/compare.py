"""`lhl compare A B`: two models paired on the contracts and runs both have, with paired bootstrap intervals."""

from __future__ import annotations

import argparse

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError, parse_runs, write_out
from orchestration.cli.suites import add_gold_option, add_suite_option, chosen_suite, suite_request


def cmd_compare(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.report.compare import compare_models, render_comparison_json, render_comparison_table

    if not home.events.has_events():
        raise CliError(f"nothing to compare in {home.root}: run `lhl demo`, `lhl audit` or `lhl import outcomes`")
    if args.resamples < 1:
        raise CliError("--resamples must be at least 1")
    suite = chosen_suite(args)
    if suite is not None:
        from lhl_platform.report.suite_compare import compare_in_suite, render_suite_comparison
        from lhl_platform.report.suite_report import suite_judge_validated

        scoped = suite_request(args, suite)
        judge, validated = suite_judge_validated(home, suite, scoped)
        if validated is False and not args.force:  # a difference of such scores separates nothing
            raise CliError(f"judge {judge} failed its validation in suite {suite.name} (see the judge_validation "
                           "section of `lhl report --suite`): not compared; give `--judge NAME` a judge that passes, "
                           "or --force")
        paired = compare_in_suite(home, suite, args.a, args.b, scoped, resamples=args.resamples, seed=args.seed)
        write_out(render_suite_comparison(paired, args.format), args.out, f"{args.format} comparison")
        return 0
    from lhl_platform.warehouse.scope import ScopeRequest

    request = ScopeRequest(corpus=args.corpus, subset=args.subset, judge=args.judge,
                           runs=tuple(parse_runs(args.runs)) if args.runs else None)
    comparison = compare_models(home, args.a, args.b, request, resamples=args.resamples, seed=args.seed,
                                force=args.force)
    text = (render_comparison_json(comparison) if args.format == "json"
            else render_comparison_table(comparison, markdown=args.format == "md"))
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
