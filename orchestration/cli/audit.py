"""`lhl audit` and `lhl demo`: materialize extraction and verdict partitions and everything downstream."""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError, parse_list, parse_runs
from orchestration.cli.spending import (
    add_max_cost,
    extraction_calls_left,
    limited,
    max_cost,
    refuse_unknown_cost,
    registered_limits,
    scope_of,
)
from orchestration.cli.suites import add_suite_option, chosen_suite

if TYPE_CHECKING:
    from lhl_platform.domain.models import Contract
    from lhl_platform.suites.contract import Suite

DEMO_MODELS = (
    ("lexical", "lexical", "cue-pattern extractor (a real baseline; the demo's plain drafting suits its cues)"),
    ("sim-inventor", "simulated:inventor", "calibration: invents conditions (declared RDI +0.16)"),
    ("sim-omitter", "simulated:omitter", "calibration: drops conditions (declared RDI -0.205)"),
    ("sim-balanced", "simulated:balanced", "calibration: over-eager detector, balanced direction"),
)


def cmd_audit(args: argparse.Namespace, home: Home) -> int:
    """The chosen suite's partition job for every (model, run), through the one run path (`_audit_suite`), or
    through the corpus audit for a job that audits the active corpus (`CORPUS_AUDITS`)."""
    models = parse_list(args.models, "models")
    runs = parse_runs(args.runs)
    suite = chosen_suite(args)
    limit_usd = max_cost(args)
    job = next((j for j in suite.jobs if j.partitioning == "model_run"), None)
    if job is None:
        raise CliError(f"suite {suite.name} has no stage that audits a (model, run) partition")
    runner = CORPUS_AUDITS.get(job.name, _audit_suite)
    with _batch_mode(args.batch):  # read by a suite's stages whose `batch` config is left open
        return runner(args, home, suite, models, runs, limit_usd)


def _audit_corpus(args: argparse.Namespace, home: Home, suite: Suite, models: list[str], runs: list[int],
                  limit_usd: float | None) -> int:
    """A partition job that audits the active corpus (the clause suite's): the corpus assets first when they lag
    it, each model's registered audit settings, re-judging, and an estimate of its extraction and judge calls."""
    from lhl_platform.clause.audit import select_contracts
    from lhl_platform.clause.stages import partition_settings
    from lhl_platform.factory import build_model
    from lhl_platform.registry import get_judge, get_model
    from orchestration.launch import audit, submit
    from orchestration.runs import audit_launch

    job = next(j for j in suite.jobs if j.partitioning == "model_run")
    suite_overrides(args, suite, job.stages)  # an option none of its stages takes: refused in one line
    # Each model's registered audit settings (params.audit), overridden by the flags given here.
    settings = {m: partition_settings(home, m, judge=args.judge, contracts=args.contracts, subset=args.subset)
                for m in models}
    for name in models:
        get_model(home, name)  # an unknown model or judge is an error naming it, dry run or not
    for judge in dict.fromkeys(s.judge for s in settings.values()):
        get_judge(home, judge)
    if args.judge is not None:
        _warn_unfit_judge(home, args.judge)
    first = settings[models[0]]
    contracts = select_contracts(home, first.contracts, first.subset)
    if args.contracts is not None and len(contracts) < args.contracts:
        raise CliError(f"--contracts {args.contracts} is more than the {len(contracts)} contracts of the active "
                       f"corpus; give at most {len(contracts)}, or leave it out to audit all of them")
    # --judge re-judges what is recorded: a partition with extractions calls only the judge, unless asked to extract
    # the contracts it lacks (with a paid model, that is money).
    rejudge = args.judge is not None and not args.extract_missing
    if args.dry_run:
        return _print_estimate(home, models, runs, contracts, first.judge, rejudge)
    for name in dict.fromkeys([*models, *(s.judge for s in settings.values())]):
        build_model(get_model(home, name))  # a missing API key: fail before any work
    refuse_unknown_cost(home, [*models, *(s.judge for s in settings.values())],
                        limit_usd is not None or registered_limits(home, models))
    if args.queue and args.batch:
        raise CliError("--batch runs here and waits for the provider; for queued runs set LHL_AUDIT_BATCH=1 in the "
                       "daemon's environment")
    if args.queue:
        launches = [audit_launch(home, m, r, "cli", judge=args.judge, contracts=args.contracts, subset=args.subset,
                                 rejudge=rejudge) for r in runs for m in models]
        ids = submit(home, launches)
        print(f"queued {len(ids)} partition run(s) for the daemon of {home.root} (`lhl daemon`); the marts, checks "
              "and drift are rebuilt once they have finished")
        return 0
    if rejudge:
        for line in _rejudge_lines(home, models, runs, contracts):
            print(line)
    started = time.perf_counter()
    with own_alerts(suite.name):
        stopped = limited(home, limit_usd, scope_of("audit", models, runs), lambda: audit(
            home, models, runs, contracts_limit=args.contracts, subset=args.subset, judge=args.judge, rejudge=rejudge),
            left=lambda: extraction_calls_left(home, models, runs, {c.contract_id for c in contracts}))
    if stopped is not None:
        return stopped
    print(f"audit finished in {time.perf_counter() - started:.1f}s; see `lhl report` (or `lhl ui` for lineage)")
    return 0


# The partition jobs that audit the active corpus (the clause suite's `audit_partition`, by its job's name): run
# through the corpus audit; every other suite's job through `_audit_suite`.
CORPUS_AUDITS: dict[str, Callable[[argparse.Namespace, Home, Suite, list[str], list[int], float | None], int]] = {
    "audit_partition": _audit_corpus}


def _warn_unfit_judge(home: Home, judge: str) -> None:
    """One line on stderr when the judge asked for failed its last validation or has none: the audit runs, but
    the figures in its scope rest on verdicts not shown to read legal force (reports mark them)."""
    import sys

    from orchestration.cli.judge import last_validation

    last = last_validation(home, judge)
    if last is None:
        print(f"lhl: warning: judge {judge} has not been validated (`lhl judge validate --judge {judge}`); reports "
              "in its scope mark its figures as resting on an unvalidated judge", file=sys.stderr)
    elif not last.passed:
        print(f"lhl: warning: judge {judge} failed its last validation on the dissociation suite "
              f"({last.suite_version}, {last.items} items); reports in its scope mark its figures", file=sys.stderr)


# The audit options a suite's partition job takes through its stages' config fields of the same name.
SUITE_OPTIONS = (("item_set", "--item-set"), ("contracts", "--contracts"), ("subset", "--subset"),
                 ("judge", "--judge"), ("batch", "--batch"))


def suite_overrides(args: argparse.Namespace, suite: Suite, stages: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """The run config per stage the options given set: each option goes to every stage whose config has its field;
    one that none of them has is refused in one line naming the suite and the option."""
    given = {field: getattr(args, field) for field, _ in SUITE_OPTIONS if getattr(args, field, None)}
    for field, flag in SUITE_OPTIONS:
        if field in given and not any(field in suite.stage(s).config.model_fields for s in stages):
            items = "; choose its items with --item-set" if field in ("contracts", "subset") else ""
            raise CliError(f"suite {suite.name} does not take {flag}: no stage of its audit has a {field} setting"
                           f"{items}")
    overrides = {stage: {k: v for k, v in given.items() if k in suite.stage(stage).config.model_fields}
                 for stage in stages}
    return {stage: values for stage, values in overrides.items() if values}


def _audit_suite(args: argparse.Namespace, home: Home, suite: Suite, models: list[str], runs: list[int],
                 limit_usd: float | None) -> int:
    """A suite's partition job for every (model, run), then the SQL models and checks; through the one run path."""
    from lhl_platform.factory import build_model
    from lhl_platform.registry import get_model
    from orchestration.launch import submit
    from orchestration.runs import job_launch

    job = next((j for j in suite.jobs if j.partitioning == "model_run"), None)
    if job is None:
        raise CliError(f"suite {suite.name} has no stage that audits a (model, run) partition")
    if args.extract_missing:
        raise CliError(f"suite {suite.name} does not take --extract-missing: it completes a clause re-judging")
    if args.contracts is not None and args.contracts < 1:
        raise CliError("--contracts must be at least 1")
    overrides = suite_overrides(args, suite, job.stages)
    for name in [*models, *([args.judge] if args.judge else [])]:
        get_model(home, name)  # an unknown model or judge is an error naming it, dry run or not
    if args.dry_run:  # never run (and spend) when only an estimate was asked for
        return _print_suite_estimate(home, suite, models, runs, overrides)
    for name in [*models, *([args.judge] if args.judge else [])]:
        build_model(get_model(home, name))  # a missing API key: fail before any work
    refuse_unknown_cost(home, [*models, *([args.judge] if args.judge else [])], limit_usd is not None)
    if suite.plan is not None:  # the selection checked before any run: an item set or count that does not fit
        try:
            suite.plan(home, models[0], runs[0], overrides)
        except (LookupError, ValueError) as exc:
            raise CliError(f"suite {suite.name}: {exc}") from None
    launches = [job_launch(home, job.name, "cli", model=m, run=r, config=overrides,
                           run_key=f"{job.name}:{m}:{r}") for r in runs for m in models]
    if args.queue:
        ids = submit(home, launches)
        print(f"queued {len(ids)} {suite.name} partition run(s) for the daemon of {home.root} (`lhl daemon`)")
        return 0
    started = time.perf_counter()
    with own_alerts(suite.name):
        stopped = limited(home, limit_usd, scope_of(f"audit --suite {suite.name}", models, runs),
                          lambda: _run_partitions(home, suite, launches, models, runs, say=print))
        if stopped is not None:
            return stopped
    print(f"{suite.name} audit finished in {time.perf_counter() - started:.1f}s; see "
          f"`lhl report --suite {suite.name}`")
    return 0


def _run_partitions(home: Home, suite: Suite, launches: list[Any], models: list[str], runs: list[int], *,
                    say: Callable[[str], None], metrics: bool = True) -> None:
    from orchestration.launch import execute, instance_for, materialize_metrics

    instance = instance_for(home)
    try:
        for step, launch in enumerate(launches, start=1):
            say(f"[{step}/{len(launches)}] {suite.name}: {launch.what} ...")
            execute(home, instance, launch)
        if metrics:
            say("building the SQL models and checks ...")
            materialize_metrics(home, instance)
    finally:
        instance.dispose()


def own_alerts(suite_name: str) -> contextlib.AbstractContextManager[None]:
    """While an audit runs, the terminal shows the failing checks of the suite audited, each once: the SQL models
    and checks after it are every suite's, whose other alerts still go to the hook and to Dagster."""
    from lhl_platform.suites import get_suite
    from resources.alerts import echo_alerts

    suite = get_suite(suite_name)
    own = {(c.name, c.asset) for c in suite.checks} | {(c.name, s.name) for s in suite.stages for c in s.checks}
    return echo_alerts(lambda alert: (alert.check, alert.asset) in own)


@contextlib.contextmanager
def _batch_mode(on: bool) -> Iterator[None]:
    """`--batch`: the partition runs executed here send LLM requests through the providers' batch APIs (their
    run config's `batch` left open, the extractions asset reads LHL_AUDIT_BATCH)."""
    from lhl_platform.calls.batch_switch import BATCH_ENV

    if not on:
        yield
        return
    before = os.environ.get(BATCH_ENV)
    os.environ[BATCH_ENV] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(BATCH_ENV, None)
        else:
            os.environ[BATCH_ENV] = before


def _rejudge_lines(home: Home, models: list[str], runs: list[int], contracts: list[Contract]) -> list[str]:
    """What re-judging does per partition: which are only judged, and what they leave unextracted."""
    from lhl_platform.clause.estimate import recorded_contracts
    from lhl_platform.clause.stages import has_extractions

    lines = []
    for model in models:
        for run in runs:
            if not has_extractions(home, model, run):
                lines.append(f"{model} run {run}: nothing recorded yet, so it is extracted and judged in full")
                continue
            recorded = recorded_contracts(home, model, run)
            judged = sum(c.contract_id in recorded for c in contracts)  # of the selection (its other corpora aside)
            lacking = len(contracts) - judged
            lines.append(f"{model} run {run}: re-judging its {judged} recorded contracts, no extraction call"
                         + (f"; {lacking} selected contracts are not extracted (--extract-missing extracts them)"
                            if lacking else ""))
    return lines


def _print_estimate(home: Home, models: list[str], runs: list[int], contracts: list[Contract], judge: str,
                    rejudge: bool = False) -> int:
    from lhl_platform.clause.estimate import estimate_audit

    rows = estimate_audit(home, models, runs, contracts, judge, rejudge=rejudge)
    print(f"Dry run: {len(contracts)} contracts x {len(runs)} run(s); nothing is called. Tokens are estimates "
          "(about 4 characters per token); work already in the event log is not counted. Extraction cost "
          "interactive (instructions read from the prompt cache after the first call) and with --batch (batch "
          "prices, no cache hits assumed).")
    for r in rows:
        if r.rejudge:
            print(f"{r.model} run {r.run}: re-judging its recorded extractions, no extraction call"
                  + (f"; {r.not_extracted} selected contracts are not extracted: --extract-missing would extract "
                     f"them ({r.not_extracted:,} calls, about ${r.extract_missing_cost_usd:,.2f} interactive)"
                     if r.not_extracted else ""))
    print(f"{'model':<20} {'run':>3} {'calls':>7} {'input tok':>12} {'output tok':>11} {'interactive':>12} "
          f"{'--batch':>10}  {'judge calls':>11} {'judge cost':>10}")
    unknown = _unknown_cost(home, [*models, judge])  # named, never costed as 0

    def usd(value: float, model: str) -> str:
        return "unknown" if model in unknown else f"${value:,.2f}"

    for r in rows:
        print(f"{r.model:<20} {r.run:>3} {r.calls:>7,} {r.input_tokens:>12,} {r.output_tokens:>11,} "
              f"{usd(r.cost_usd, r.model):>12} {usd(r.batch_cost_usd, r.model):>10}  {r.judge_calls:>11,} "
              f"{usd(r.judge_cost_usd, judge):>10}")
    judge_cost = sum(r.judge_cost_usd for r in rows)
    interactive = sum(r.cost_usd for r in rows) + judge_cost
    batch = sum(r.batch_cost_usd for r in rows) + judge_cost
    print(f"total: {sum(r.calls for r in rows):,} extraction calls, {sum(r.judge_calls for r in rows):,} judge calls, "
          f"about ${interactive:,.2f} interactive or ${batch:,.2f} with --batch, at registered prices"
          + (f", without the unknown cost of {', '.join(sorted(unknown))} (`lhl models prices NAME`)" if unknown
             else ""))
    known, assumed = sum(r.judge_calls_recorded for r in rows), sum(r.judge_calls_assumed for r in rows)
    basis = ([f"{known:,} for the true positives of recorded extractions that {judge} has not labelled"]
             if known or not assumed else [])
    basis += ([f"{assumed:,} for the present clauses of contracts not extracted yet (as if every one were found: "
               "an upper bound, since only true positives are judged)"] if assumed else [])
    print(f"judge calls: {'; '.join(basis)}")
    from lhl_platform.registry import get_model

    undiscounted = [m for m in models if (p := get_model(home, m).price).input_per_mtok
                    and p.batch_input_per_mtok >= p.input_per_mtok and p.batch_output_per_mtok >= p.output_per_mtok]
    if undiscounted:
        print(f"note: {', '.join(undiscounted)} {'has' if len(undiscounted) == 1 else 'have'} no batch prices "
              "registered, so the --batch column uses the interactive rates without cache hits (register "
              "--batch-input-price and --batch-output-price to compare)")
    return 0


def _print_suite_estimate(home: Home, suite: Suite, models: list[str], runs: list[int],
                          overrides: dict[str, dict[str, Any]]) -> int:
    from lhl_platform.suites.estimate import estimate_suite

    if suite.plan is None:
        raise CliError(f"suite {suite.name} declares no estimate of its calls, so it has no --dry-run")
    try:
        rows = estimate_suite(home, suite, models, runs, overrides)
    except (LookupError, ValueError) as exc:
        raise CliError(f"suite {suite.name}: {exc}") from None
    print(f"Dry run of {suite.name}: {len(models)} model(s) x {len(runs)} run(s); nothing is called. Input tokens "
          "are estimates (about 4 characters per token) of the prompts the suite's stages render from its items; "
          "work already in the event log is not counted. Output tokens are an assumption: each answering model's "
          "expected_output_tokens (default 1,500; `--params`), capped at the request's max output tokens. Cost at "
          "each model's rates, interactive with no prompt-cache hits assumed, and with --batch.")
    print(f"{'model':<20} {'run':>3} {'stage':<26} {'called model':<24} {'calls':>7} {'input tok':>12} "
          f"{'output tok':>11} {'interactive':>12} {'--batch':>10}")

    def usd(value: float | None) -> str:
        return "unknown" if value is None else f"${value:,.2f}"

    for r in rows:
        print(f"{r.model:<20} {r.run:>3} {r.stage:<26} {r.caller:<24} {r.calls:>7,} {r.input_tokens:>12,} "
              f"{r.output_tokens:>11,} {usd(r.cost_usd):>12} {usd(r.batch_cost_usd):>10}")
    unknown = sorted({r.caller for r in rows if not r.known_cost})
    interactive = None if unknown else sum(r.cost_usd or 0.0 for r in rows)
    batch = None if unknown else sum(r.batch_cost_usd or 0.0 for r in rows)
    known = [r for r in rows if r.known_cost]
    print(f"total: {sum(r.calls for r in rows):,} calls, {sum(r.input_tokens for r in rows):,} input and "
          f"{sum(r.output_tokens for r in rows):,} output tokens, "
          + (f"about {usd(interactive)} interactive or {usd(batch)} with --batch" if not unknown else
             f"cost unknown: {', '.join(unknown)} {'has' if len(unknown) == 1 else 'have'} no rates "
             f"(`lhl models prices NAME`); the rest about {usd(sum(r.cost_usd or 0.0 for r in known))} "
             f"interactive or {usd(sum(r.batch_cost_usd or 0.0 for r in known))} with --batch"))
    unbatched = sorted({r.stage for r in rows if not r.batched})
    if unbatched:
        print(f"note: {', '.join(unbatched)} {'sends' if len(unbatched) == 1 else 'send'} its calls interactively "
              "under --batch too (costed at the interactive rates in that column)")
    assumed = sum(r.assumed_calls for r in rows)
    if assumed:
        print(f"note: {assumed:,} judge call(s) read answers not made yet; their prompts hold a stand-in of the "
              "answering model's expected_output_tokens")
    return 0


def _unknown_cost(home: Home, names: list[str]) -> set[str]:
    """The models neither the price table nor their registration prices."""
    from lhl_platform.providers.prices import pricing_for
    from lhl_platform.registry import get_model

    return {n for n in names if not pricing_for(get_model(home, n)).known}


def cmd_demo(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.clause.report.build import build_report_with_checks
    from lhl_platform.clause.report.render import render_text
    from lhl_platform.corpus.demo import DEMO_DIR
    from lhl_platform.domain.models import ModelSpec
    from lhl_platform.registry import add_model
    from lhl_platform.suites import suites
    from orchestration.cli.debate import demo_debate
    from orchestration.launch import audit, instance_for, materialize_corpus, validate_judges

    started = time.perf_counter()

    def say(text: str) -> None:
        print(f"[{time.perf_counter() - started:5.1f}s] {text}", flush=True)

    say(f"home: {home.root}")
    instance = instance_for(home)
    try:
        say("loading the bundled demo corpus (12 contracts x 41 clause types) through Dagster ...")
        materialize_corpus(home, instance, str(DEMO_DIR))
    finally:
        instance.dispose()
    for name, model_id, what in DEMO_MODELS:
        add_model(home, ModelSpec(name=name, provider="offline", model_id=model_id))
        say(f"model {name}: {what}")
    runs = list(range(1, args.runs + 1))
    audit(home, [m[0] for m in DEMO_MODELS], runs, say=say, metrics=False)  # built once, after the debate
    say("validating the judges on the dissociation suite of the demo corpus ...")
    validate_judges(home)
    demo_suites = [suite for suite in suites() if suite.demo is not None]
    for suite in demo_suites:  # beside the clause suite; the SQL models are built once, after the debate
        _demo_partitions(home, suite, say)
    demo_debate(home, runs, say=say)
    report, checks = build_report_with_checks(home)
    say("done\n")
    print(render_text(report, checks))
    for suite in demo_suites:
        print(_demo_summary(home, suite))
    print(f"Next: `lhl report --format json`, `lhl verify`, `lhl ui --home {home.root}` to inspect lineage.")
    return 0


def _demo_partitions(home: Home, suite: Suite, say: Callable[[str], None]) -> None:
    """A suite's offline demo models, one run each, through its partition job (after its `prepare`)."""
    from lhl_platform.registry import add_model
    from orchestration.runs import job_launch

    assert suite.demo is not None
    if suite.demo.prepare is not None:
        say(f"{suite.title}: {suite.demo.prepare(home)}")
    for spec, what in suite.demo.models:
        add_model(home, spec)
        say(f"{suite.title} model {spec.name}: {what}")
    job = next(j for j in suite.jobs if j.partitioning == "model_run")
    models = [spec.name for spec, _ in suite.demo.models]
    launches = [job_launch(home, job.name, "cli", model=m, run=1, config={}, run_key=f"{job.name}:{m}:1")
                for m in models]
    _run_partitions(home, suite, launches, models, [1], say=say, metrics=False)


def _demo_summary(home: Home, suite: Suite) -> str:
    """A suite's leaderboard under its demo's columns, with the item set (and whether it is self-built)."""
    from lhl_platform.report.layout import text_table as _table
    from lhl_platform.report.suite_report import _text, build_suite_report

    assert suite.demo is not None
    report = build_suite_report(home, suite)
    rows = report.sections.get("leaderboard", [])
    fields = list(suite.demo.columns) or (list(type(rows[0]).model_fields) if rows else [])
    table = _table(fields, [[_text(getattr(r, f)) for f in fields] for r in rows], False) if rows else "(no rows)"
    scope = report.scope
    built = {s.id: s for s in suite.item_sets(home)}.get(str(scope.item_set))
    label = "self-built" if built is not None and built.self_built else ""
    judge = f", judge {scope.judge}" if scope.judge else ""
    failed = [c.name for c in report.checks if not c.passed]
    note = f"; {suite.demo.note}" if suite.demo.note else ""
    return (f"\n{suite.title} ({suite.name}): item set {scope.item_set} ({scope.items} items"
            f"{', ' + label if label else ''}){judge}\n{table}\n"
            f"checks: {'all pass' if not failed else 'FAILED ' + ', '.join(failed)}{note}; "
            f"see `lhl report --suite {suite.name}`")


def register(cli: Cli) -> None:
    au = cli.add("audit", cmd_audit, "materialize extraction and verdict partitions and everything downstream")
    au.add_argument("--models", required=True, help="comma-separated registered model names")
    au.add_argument("--runs", default="1", help="comma-separated run numbers (default 1)")
    add_suite_option(au)
    au.add_argument("--contracts", type=int, help="only the first N contracts (by id)")
    au.add_argument("--subset", help="a stored subset (lhl subset create)")
    au.add_argument("--judge", help="evaluation judge (default: the model's registered audit judge, else the primary "
                    "judge, else the offline rubric judge); with --judge, a partition that has recorded extractions "
                    "is re-judged only: no extraction call")
    au.add_argument("--extract-missing", action="store_true",
                    help="with --judge: also extract the selected contracts a partition has not recorded yet")
    au.add_argument("--queue", action="store_true", help="queue the partition runs for the daemon (`lhl daemon`) "
                    "instead of running them here")
    au.add_argument("--dry-run", action="store_true", help="estimate calls, tokens and cost (interactive and with "
                    "--batch); call nothing")
    au.add_argument("--batch", action="store_true", help="for audits that can wait: send LLM requests through the "
                    "providers' batch APIs (batch prices, answered within hours); a stopped run resumes by polling")
    add_max_cost(au, "the audit (every suite: its model calls and its judge's)")

    demo = cli.add("demo", cmd_demo, "offline end-to-end audit of the bundled demo corpus through Dagster")
    demo.add_argument("--runs", type=int, default=2, choices=range(1, 6), metavar="N",
                      help="runs per model (default 2)")
