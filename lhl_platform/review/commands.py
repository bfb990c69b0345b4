"""The review commands (declared with ContractScrub's, `lhl_platform.catalog_commands`; they serve every suite with
gold, `--suite`):

- `lhl review export --suite S --out DIR [--item-set ID] [--gold-version N]`: the sheet of a gold version (default:
  the latest): DIR/review.html to read (the suite's guide to each decision first), DIR/decisions.csv to fill in
  (`decision`, `corrected_location` for a `wrong_location`, `note`), stamped with the digest of its rows;
- `lhl review import FILE --reviewer NAME`: the filled-in sheet validated whole, its decisions recorded as events
  and the next gold version made (`lhl_platform.review.record`); a bad line, or a sheet whose rows no longer match
  the gold version's (an audit imported since), is one error and nothing is written;
- `lhl review agreement --suite S [--item-set ID] [--gold-version N] [--reviewers A,B]`: Cohen's kappa of two
  reviewers on the refs both decided on the sheets of gold version N (default: the latest reviewed), and the
  disagreements to settle.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from lhl_platform.home import Home
from lhl_platform.review.agreement import agreement
from lhl_platform.review.decisions import DecisionsError, read_rows
from lhl_platform.review.record import import_decisions
from lhl_platform.review.sheet import write_sheet
from lhl_platform.review.sheets import SUITES, sheet
from lhl_platform.review.versions import decisions, review_events
from lhl_platform.suites.contract import Command


def cmd_export(args: argparse.Namespace, home: Home) -> int:
    events = review_events(home)
    current = sheet(home, events, args.suite, args.item_set, args.gold_version)
    title = f"Review of {current.suite} item set {current.item_set}, gold version {current.gold_version}"
    html, table = write_sheet(Path(args.out), current.suite, current.rows, title)
    kinds = ", ".join(f"{sum(r.kind == k for r in current.rows)} {k}" for k in dict.fromkeys(r.kind
                                                                                           for r in current.rows))
    print(f"wrote the review sheet of {current.suite} item set {current.item_set}, gold version "
          f"{current.gold_version}: {len(current.rows)} rows ({kinds or 'nothing to review'}) to {html} and {table}")
    return 0


def cmd_import(args: argparse.Namespace, home: Home) -> int:
    path = Path(args.file)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    done = import_decisions(home, path.read_bytes(), path.name, args.reviewer)
    if done.made is None:
        print(f"{path.name} by {args.reviewer} was imported before; nothing new recorded")
        return 0
    m = done.made
    print(f"recorded {done.decided} decisions of {args.reviewer} on {done.rows} rows of the sheet of {done.suite} "
          f"item set {done.item_set}, gold version {done.base_version}; made gold version {m.gold_version}: "
          f"{m.changed} rows change the gold, {m.reviewed} of {m.reviewable} reviewed by {len(m.reviewers)} "
          f"reviewer(s)" + (f", {m.disagreements} disagreements left as they were (`lhl review agreement`)"
                             if m.disagreements else ""))
    return 0


def gold_jobs(args: argparse.Namespace, home: Home) -> tuple[str, ...]:
    """The job that shows the imported sheet's suite's gold versions (its one stage, `<...>_gold_versions`), so the
    asset and the report agree the moment `lhl review import` returns."""
    from lhl_platform.suites import get_suite

    path = Path(args.file)
    header, _ = read_rows(path.read_bytes(), path.name)
    return tuple(j.name for j in get_suite(header.suite).jobs
                 if len(j.stages) == 1 and j.stages[0].endswith("_gold_versions"))


def cmd_agreement(args: argparse.Namespace, home: Home) -> int:
    events = review_events(home)
    current = sheet(home, events, args.suite, args.item_set, 1)
    found = [d for d in decisions(events) if d.suite == args.suite and d.item_set == current.item_set]
    version = args.gold_version if args.gold_version is not None else max((d.gold_version for d in found), default=1)
    who = sorted({d.reviewer for d in found if d.gold_version == version})
    if args.reviewers:
        named = [r.strip() for r in args.reviewers.split(",") if r.strip()]
        if len(named) != 2:
            raise DecisionsError("--reviewers takes two names, A,B")
        unknown = [r for r in named if r not in who]
        if unknown:
            raise DecisionsError(f"{', '.join(unknown)} decided nothing on the sheet of gold version {version}; "
                                 f"reviewers: {', '.join(who) or 'none'}")
        who = named
    if len(who) != 2:
        raise DecisionsError(f"{len(who)} reviewer(s) decided on the sheet of gold version {version} of item set "
                             f"{current.item_set} ({', '.join(who) or 'none'}); agreement needs two (--reviewers A,B)")
    result = agreement(found, args.suite, current.item_set, version, (who[0], who[1]))
    if args.format == "json":
        print(json.dumps(result.model_dump(mode="json"), indent=2))
        return 0
    kappa = "undefined" if result.kappa is None else f"{result.kappa:.3f}"
    print(f"{who[0]} and {who[1]} on gold version {version} of {args.suite} item set {current.item_set}: "
          f"{result.refs} refs both decided, {result.agreed} alike; Cohen's kappa {kappa}")
    for d in result.disagreements:
        print(f"  {d.ref}  {d.item_id}  {d.kind}  {d.category}: {who[0]} {d.first}, {who[1]} {d.second}")
    return 0


def _suite(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", required=True, choices=SUITES, help="the suite whose gold is reviewed")
    p.add_argument("--item-set", dest="item_set", help="the item set (default: the active one)")
    p.add_argument("--gold-version", dest="gold_version", type=int, help="a gold version (default: the latest)")


def _define_export(p: argparse.ArgumentParser) -> None:
    _suite(p)
    p.add_argument("--out", required=True, help="the folder to write review.html and decisions.csv to")


def _define_import(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a decisions.csv of `lhl review export`, its decision (and note) columns filled in")
    p.add_argument("--reviewer", required=True, help="who decided (recorded with every decision)")


def _define_agreement(p: argparse.ArgumentParser) -> None:
    _suite(p)
    p.add_argument("--reviewers", help="the two reviewers, A,B (default: the two who decided)")
    p.add_argument("--format", choices=("text", "json"), default="text")


COMMANDS = (
    Command(("review", "export"), "write the review sheet of a suite's gold (review.html and decisions.csv)",
            _define_export, cmd_export),
    Command(("review", "import"), "record a reviewer's decisions (a filled-in decisions.csv) and make the next gold "
            "version", _define_import, cmd_import, then_jobs=gold_jobs),
    Command(("review", "agreement"), "two reviewers' agreement on the same sheet (Cohen's kappa) and their "
            "disagreements", _define_agreement, cmd_agreement),
)
