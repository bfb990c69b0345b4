"""`lhl monitor`: a suite's headline figures as a series of audit rounds, with the changes detected (the same
detection as the `no_change_detected` check and the alerts): a table, JSON, CSV, Markdown, or the trend page."""

from __future__ import annotations

import argparse

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError, parse_list, write_out
from orchestration.cli.suites import add_gold_option, add_suite_option, chosen_suite, suite_scope


def cmd_monitor(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.monitoring.detect import Settings
    from lhl_platform.report.monitor import read_monitor_report
    from lhl_platform.report.monitor_render import render

    suite = chosen_suite(args)
    if suite.monitor is None:
        raise CliError(f"suite {suite.name} has no audit rounds to monitor (it validates judges: `lhl judge "
                       "validate`)")
    if not 0 < args.alpha < 1:
        raise CliError(f"--alpha {args.alpha}: must lie strictly between 0 and 1")
    if args.window < 1:
        raise CliError(f"--window {args.window}: must be at least 1 round")
    if args.min_units < 1:
        raise CliError(f"--min-units {args.min_units}: must be at least 1")
    metrics = parse_list(args.metric, "metric") if args.metric else None
    for key in metrics or ():
        try:
            suite.monitor.metric(key)
        except LookupError as exc:
            known = ", ".join(m.key for m in suite.monitor.metrics)
            raise CliError(f"--metric {key}: not a metric suite {suite.name} monitors ({known})") from exc
    if not home.events.has_events():
        raise CliError(f"nothing to monitor in {home.root}: run `lhl demo`, `lhl audit` or an import first")
    _, request, asked = suite_scope(args, suite)
    report = read_monitor_report(home, suite, request, metrics=metrics,
                                 settings=Settings(window=args.window, alpha=args.alpha, min_units=args.min_units))
    write_out(render(report, suite.monitor, args.format), args.out, f"{args.format} monitoring of suite {suite.name}")
    return 0


def register(cli: Cli) -> None:
    from lhl_platform.monitoring.declaration import ALPHA, MIN_UNITS, WINDOW

    p = cli.add("monitor", cmd_monitor, "a suite's headline figures round by round, with the changes detected")
    add_suite_option(p)
    add_gold_option(p)
    p.add_argument("--corpus", help="the clause suite's corpus (default: the active one)")
    p.add_argument("--subset", help="only the contracts of this stored subset (clause suite)")
    p.add_argument("--runs", help="comma-separated runs (default: every audited run)")
    p.add_argument("--models", help="comma-separated models (default: every model in scope); a "
                   "round's tests are those of the models in scope")
    p.add_argument("--judge", help="the judge whose verdicts count (default: the suite's)")
    p.add_argument("--metric", help="comma-separated metrics to show (default: every headline metric); detection "
                   "always tests all of them")
    p.add_argument("--format", choices=["table", "json", "csv", "md", "html"], default="table",
                   help="html: the trend page alone (best with --out FILE)")
    p.add_argument("--out", help="write to FILE instead of stdout")
    p.add_argument("--window", type=int, default=WINDOW, help=f"earlier rounds a round is tested against "
                   f"(default {WINDOW})")
    p.add_argument("--alpha", type=float, default=ALPHA, help=f"family-wise false-alarm rate per round (default "
                   f"{ALPHA:g})")
    p.add_argument("--min-units", dest="min_units", type=int, default=MIN_UNITS,
                   help=f"fewest units a side for a test (default {MIN_UNITS})")
