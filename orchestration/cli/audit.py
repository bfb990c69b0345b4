"""`lhl audit` and `lhl demo`: every suite's partition job for each (model, run), and everything downstream.

One audit path for every suite: the flags become the run config of the partition job's stages that take them (one a
suite cannot honour is refused in one line naming the suite and the flag), over the model's registered settings
(the job's `run_config`); what a suite's audit adds to running its job (an items job brought up to date first, a
selection check, its own dry-run estimate, a re-judging's lines, the calls left when a limit stops it) it declares
as `Suite.audit` (`lhl_platform.suites.contract.AuditHooks`), and the runs go through `orchestration.launch.run_suite`.
`run_audit` is that path, the flags given as `AuditOptions`: what `lhl audit` runs, and what tests call.
`lhl demo` takes the same path for every suite that declares a demo, then the partitioned jobs each demo follows up
with (`Demo.follow_ups`), and prints each one's report through its reporting.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError, parse_list, parse_runs
from orchestration.cli.spending import (
    add_max_cost,
    limited,
    max_cost,
    refuse_unknown_cost,
    registered_limits,
    scope_of,
)
from orchestration.cli.suites import add_suite_option, chosen_suite

if TYPE_CHECKING:
    from lhl_platform.suites.contract import FollowUp, Job, Suite
    from orchestration.runs import Launch

Say = Callable[[str], None]


@dataclass(frozen=True)
class AuditOptions:
    """The options of `lhl audit` beside the suite, models and runs, by the names of its flags."""

    item_set: str | None = None
    contracts: int | None = None
    subset: str | None = None
    judge: str | None = None
    batch: bool = False
    extract_missing: bool = False
    queue: bool = False
    dry_run: bool = False
    max_cost: float | None = None


def cmd_audit(args: argparse.Namespace, home: Home) -> int:
    """The chosen suite's partition job for every (model, run), through the one audit path (`run_audit`)."""
    # the values given are checked before what is missing: a bad amount or count is named first
    max_cost(args)
    if args.contracts is not None and args.contracts < 1:
        raise CliError(f"--contracts must be at least 1, not {args.contracts}")
    runs = parse_runs(args.runs)
    if args.models is None:
        raise CliError("lhl audit needs --models: comma-separated registered model names (`lhl models list`)")
    models = parse_list(args.models, "models")
    suite = chosen_suite(args)
    options = AuditOptions(item_set=args.item_set, contracts=args.contracts, subset=args.subset, judge=args.judge,
                           batch=args.batch, extract_missing=args.extract_missing, queue=args.queue,
                           dry_run=args.dry_run, max_cost=args.max_cost)
    return run_audit(home, suite, models, runs, options)


def run_audit(home: Home, suite: Suite, models: Sequence[str], runs: Sequence[int],
              options: AuditOptions | None = None, *, say: Say = print, metrics: bool = True) -> int:
    """`lhl audit` for any suite: its partition job for every (model, run) with the suite's audit hooks, then
    (unless `metrics` is off, for a caller that builds them later) the SQL models and checks; the exit code.
    An option the suite cannot honour, or a selection that does not fit, is a `CliError` naming it."""
    options = options or AuditOptions()
    limit_usd = max_cost(argparse.Namespace(max_cost=options.max_cost, queue=options.queue))
    job = partition_job(suite)
    with _batch_mode(options.batch):  # read by a suite's stages whose `batch` config is left open
        return _audit(options, home, suite, job, list(models), list(runs), limit_usd, say, metrics)


def partition_job(suite: Suite) -> Job:
    job = next((j for j in suite.jobs if j.partitioning == "model_run"), None)
    if job is None:
        raise CliError(f"suite {suite.name} has no stage that audits a (model, run) partition")
    return job


# The audit options a suite's partition job takes through its stages' config fields of the same name.
SUITE_OPTIONS = (("item_set", "--item-set"), ("contracts", "--contracts"), ("subset", "--subset"),
                 ("judge", "--judge"), ("batch", "--batch"))
REJUDGE = "rejudge"  # the config field of a stage that re-judges what is recorded instead of solving again


def suite_overrides(args: AuditOptions, suite: Suite, stages: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """The run config per stage the options given set: each option goes to every stage whose config has its field;
    one that none of them has is refused in one line naming the suite and the option. `--judge` without
    `--extract-missing` re-judges, in a suite whose stages can (a `rejudge` field)."""
    given = {field: getattr(args, field) for field, _ in SUITE_OPTIONS if getattr(args, field, None)}
    for field, flag in SUITE_OPTIONS:
        if field in given and not any(field in suite.stage(s).config.model_fields for s in stages):
            items = "; choose its items with --item-set" if field in ("contracts", "subset") else ""
            raise CliError(f"suite {suite.name} does not take {flag}: no stage of its audit has a {field} setting"
                           f"{items}")
    rejudges = [s for s in stages if REJUDGE in suite.stage(s).config.model_fields]
    extract_missing = args.extract_missing
    if extract_missing and not rejudges:
        raise CliError(f"suite {suite.name} does not take --extract-missing: no stage of its audit re-judges what is "
                       "recorded (it completes a re-judging with --judge)")
    if extract_missing and not given.get("judge"):
        raise CliError("--extract-missing completes a re-judging: give it with --judge")
    overrides = {stage: {k: v for k, v in given.items() if k in suite.stage(stage).config.model_fields}
                 for stage in stages}
    if given.get("judge") and not extract_missing:  # re-judge what is recorded; solve only what is not
        for stage in rejudges:
            overrides[stage][REJUDGE] = True
    return {stage: values for stage, values in overrides.items() if values}


def _judges(launches: list[Launch]) -> list[str]:
    """The judges the launches' run config names (the flag's, or each model's registered audit judge)."""
    named = [op.get("config", {}).get("judge") for launch in launches
             for op in launch.run_config.get("ops", {}).values()]
    return list(dict.fromkeys(j for j in named if j))


def _audit(args: AuditOptions, home: Home, suite: Suite, job: Job, models: list[str], runs: list[int],
           limit_usd: float | None, say: Say, metrics: bool) -> int:
    """A suite's partition job for every (model, run), then the SQL models and checks; through the one run path."""
    import sys

    from lhl_platform.factory import build_model
    from lhl_platform.registry import get_judge, get_model
    from lhl_platform.suites.contract import AuditHooks
    from lhl_platform.suites.ownership import get_audited
    from orchestration.launch import run_suite, submit
    from orchestration.runs import partition_launch

    hooks = suite.audit or AuditHooks()
    if args.contracts is not None and args.contracts < 1:
        raise CliError(f"--contracts must be at least 1, not {args.contracts}")
    overrides = suite_overrides(args, suite, job.stages)
    for name in models:  # an unknown model, a judge or another suite's offline system: refused, dry run or not
        get_audited(home, name, suite.name)
    launches = [partition_launch(home, job.name, m, r, "cli", config=overrides) for r in runs for m in models]
    judges = _judges(launches)
    for name in judges:
        get_judge(home, name)
    try:  # the selection checked before anything is estimated or called: one that does not fit, in one line
        unfit = unfit_judge(home, args.judge) if args.judge and hooks.judges_on_dissociation else []
        for line in [*(hooks.check(home, models, runs, overrides) if hooks.check is not None else []), *unfit]:
            print(f"lhl: warning: {line}", file=sys.stderr)
        if args.dry_run:  # never run (and spend) when only an estimate was asked for
            return _print_estimate(home, suite, models, runs, overrides, say)
        if hooks.check is None and suite.plan is not None:
            suite.plan(home, models[0], runs[0], overrides)
    except (KeyError, IndexError):
        raise  # a bug, with its traceback: not a selection that does not fit
    except (LookupError, ValueError) as exc:
        raise CliError(f"suite {suite.name}: {exc}") from None
    callers = list(dict.fromkeys([*models, *judges]))
    for name in callers:
        build_model(get_model(home, name))  # a missing API key: fail before any work
    refuse_unknown_cost(home, callers, limit_usd is not None or registered_limits(home, models))
    if args.queue:
        ids = submit(home, launches)
        say(f"queued {len(ids)} {suite.name} partition run(s) for the daemon of {home.root} (`lhl daemon`)")
        return 0
    if overrides and hooks.rejudging is not None and any(REJUDGE in values for values in overrides.values()):
        for line in hooks.rejudging(home, models, runs, overrides):
            say(line)
    started = time.perf_counter()
    command = f"audit --suite {suite.name}"
    left = hooks.left
    with own_alerts(suite.name):
        stopped = limited(home, limit_usd, scope_of(command, models, runs),
                          lambda: run_suite(home, suite, launches, say=say, metrics=metrics),
                          left=None if left is None else lambda: left(home, models, runs, overrides))
    if stopped is not None:
        return stopped
    report = f"lhl report --suite {suite.name}"
    say(f"{suite.name} audit finished in {time.perf_counter() - started:.1f}s; see `{report}` (or `lhl ui` for "
        "lineage)")
    return 0


def unfit_judge(home: Home, judge: str) -> list[str]:
    """A judge asked for that is not validated on held-out evidence (it failed, or has no such result), named: the
    audit runs, but the figures in its scope rest on verdicts not shown to read legal force."""
    from orchestration.cli.judge import held_out_status

    status, why = held_out_status(home, judge)
    if status:
        return []
    return [f"judge {judge} is not validated: {why} (`lhl judge validate --judge {judge}`); reports in its scope "
            "mark its figures"]


def _print_estimate(home: Home, suite: Suite, models: list[str], runs: list[int],
                    overrides: dict[str, dict[str, Any]], say: Say) -> int:
    """The suite's own dry-run estimate, else the shared estimate of the calls its `plan` says it would make."""
    from lhl_platform.suites.estimate import estimate_lines

    if suite.audit is not None and suite.audit.estimate is not None:
        lines = suite.audit.estimate(home, models, runs, overrides)
    elif suite.plan is not None:
        lines = estimate_lines(home, suite, models, runs, overrides)
    else:
        raise CliError(f"suite {suite.name} declares no estimate of its calls, so it has no --dry-run")
    say("\n".join(lines))
    return 0


def own_alerts(suite_name: str) -> contextlib.AbstractContextManager[None]:
    """While an audit runs, the terminal shows the failing checks of the suite audited, each once: the SQL models
    and checks after it are every suite's, whose other alerts still go to the hook and to Dagster."""
    from lhl_platform.report.monitor import mart_checks
    from lhl_platform.suites import get_suite
    from resources.alerts import echo_alerts

    suite = get_suite(suite_name)
    own = {(c.name, c.asset) for c in mart_checks(suite)} | {(c.name, s.name) for s in suite.stages for c in s.checks}
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


def cmd_demo(args: argparse.Namespace, home: Home) -> int:
    """Every suite that declares a demo, through the audit path `lhl audit` takes (its demo models offline, its
    `prepare` first), then the follow-up jobs each demo declares, the SQL models once, then each suite's report
    through its reporting."""
    from lhl_platform.suites import suites
    from orchestration.launch import run_metrics

    started = time.perf_counter()

    def say(text: str) -> None:
        print(f"[{time.perf_counter() - started:5.1f}s] {text}", flush=True)

    say(f"home: {home.root}")
    runs = list(range(1, args.runs + 1))
    demo_suites = [suite for suite in suites() if suite.demo is not None]
    for suite in demo_suites:  # the SQL models are built once, after the follow-ups
        _demo_audit(home, suite, runs, say)
    for suite in demo_suites:  # after every suite's partitions, on what they recorded
        _demo_follow_ups(home, suite, runs, say)
    run_metrics(home, say=say)
    say("done\n")
    unvalidated: list[str] = []
    for suite in demo_suites:
        text, failing = _demo_report(home, suite)
        print(text)
        unvalidated += [f"{suite.title}: {summary}" for name, summary in failing if name == JUDGE_CHECK]
    for line in judge_advice(unvalidated):
        print(line)
    print(f"Next: `lhl report --format json`, `lhl verify`, `lhl ui --home {home.root}` to inspect lineage.")
    return 0


JUDGE_CHECK = "judge_validated"  # every judged suite's check that its judge passes its held-out evidence


def judge_advice(unvalidated: Sequence[str]) -> list[str]:
    """The demo's closing lines on judges: which of the demo's judges held-out evidence does not validate (their
    figures are marked in the reports above), and which judge a real audit should use and how to validate it."""
    if not unvalidated:
        return []
    return ["", "Judges: the demo's offline judges are NOT validated on held-out evidence, so the content figures "
                "above (the clause suite's HalTP, HalGen, JEq and RDI; InsufficiencyBench's judged figures) are "
                "marked and are not to be acted on:",
            *(f"  - {line}" for line in unvalidated),
            "For a real audit, use an LLM judge and validate it on held-out evidence before trusting its figures "
            "(README, \"Choosing and validating a judge\"):",
            "  lhl models add my-judge --provider openai --model-id gpt-4.1 --role judge",
            "  lhl judge validate --judge my-judge --samples 5 --dry-run     # calls, tokens and cost; calls nothing",
            "  lhl judge validate --judge my-judge --samples 5 --max-cost 20  # exit 0 only if every held-out set "
            "passes",
            "  lhl judge primary my-judge && lhl audit --models M --runs 1 --judge my-judge",
            ""]


def _demo_runs(suite: Suite, runs: list[int]) -> list[int]:
    """The runs a suite's demo audits: each run asked with `every_run`, else run 1."""
    demo = suite.demo
    assert demo is not None
    return runs if demo.every_run else [1]


def _demo_audit(home: Home, suite: Suite, runs: list[int], say: Callable[[str], None]) -> None:
    """A suite's offline demo models through its partition job (after its `prepare`), for the runs its demo
    audits; then the jobs its demo names in `then`."""
    from lhl_platform.registry import add_model
    from orchestration.launch import run_suite
    from orchestration.runs import job_launch

    demo = suite.demo
    assert demo is not None
    if demo.prepare is not None:
        say(f"{suite.title}: {demo.prepare(home)}")
    for spec, what in demo.models:
        add_model(home, spec)
        say(f"{suite.title} model {spec.name}: {what}")
    job = partition_job(suite)
    models = [spec.name for spec, _ in demo.models]
    launches = [job_launch(home, job.name, "cli", model=m, run=r, config={}, run_key=f"{job.name}:{m}:{r}")
                for r in _demo_runs(suite, runs) for m in models]
    run_suite(home, suite, launches, say=say, metrics=False, then=demo.then)


def _demo_follow_ups(home: Home, suite: Suite, runs: list[int], say: Callable[[str], None]) -> None:
    """The partitioned jobs a suite's demo follows up with (`Demo.follow_ups`), in order, each after its `prepare`:
    once per model for a job by model, per model and run the demo audited for a job by both."""
    from orchestration.launch import run_suite

    demo = suite.demo
    assert demo is not None
    for follow in demo.follow_ups:
        if follow.prepare is not None:
            say(f"{suite.title}: {follow.prepare(home)}")
        launches = follow_up_launches(home, suite, follow, _demo_runs(suite, runs))
        run_suite(home, suite, launches, say=say, metrics=False)


def follow_up_launches(home: Home, suite: Suite, follow: FollowUp, runs: Sequence[int]) -> list[Launch]:
    """A demo's follow-up as launches of its job, with its run config over the job's own: the launches every
    launcher builds for the same partitions. A job that is not one of the suite's partitioned jobs is refused."""
    from orchestration.runs import job_launch, partition_launch

    job = next((j for j in suite.jobs if j.name == follow.job), None)
    if job is None or job.partitioning == "none":
        raise LookupError(f"suite {suite.name}'s demo follows up with {follow.job!r}, which is not one of its "
                          "partitioned jobs (a job run once goes in `Demo.then`)")
    config = {stage: dict(values) for stage, values in follow.config.items()}
    if job.partitioning == "model":
        return [job_launch(home, job.name, "cli", model=m, config=config, run_key=f"{job.name}:{m}")
                for m in follow.models]
    return [partition_launch(home, job.name, m, r, "cli", config=config) for r in runs for m in follow.models]


def _demo_report(home: Home, suite: Suite) -> tuple[str, list[tuple[str, str]]]:
    """The suite's report through its reporting, in its default scope: in full (`Demo.full_report`), else its
    leaderboard under the demo's columns, with the item set (and whether it is self-built) and its checks."""
    from lhl_platform.report.layout import text_table
    from lhl_platform.report.reporting import reporting_of
    from lhl_platform.report.suite_report import cell_text
    from lhl_platform.suites.reporting import Asked

    demo = suite.demo
    assert demo is not None
    reporting = reporting_of(suite)
    asked = Asked()
    built = reporting.build(home, suite, reporting.request(suite, asked), asked, "table")
    failing = reporting.failing(built)
    if demo.full_report:
        return reporting.render(built, suite, "table"), failing
    rows = built.sections.get("leaderboard", [])
    fields = list(demo.columns) or (list(type(rows[0]).model_fields) if rows else [])
    cells = [[cell_text(getattr(r, f)) for f in fields] for r in rows]
    table = text_table(fields, cells, False) if rows else "(no rows)"
    scope = built.scope
    listed = {s.id: s for s in suite.item_sets(home)}.get(str(scope.item_set))
    label = "self-built" if listed is not None and listed.self_built else ""
    judge = f", judge {scope.judge}" if scope.judge else ""
    failed = [name for name, _ in failing]
    note = f"; {demo.note}" if demo.note else ""
    return (f"\n{suite.title} ({suite.name}): item set {scope.item_set} ({scope.items} items"
            f"{', ' + label if label else ''}){judge}\n{table}\n"
            f"checks: {'all pass' if not failed else 'FAILED ' + ', '.join(failed)}{note}; "
            f"see `lhl report --suite {suite.name}`"), failing


def register(cli: Cli) -> None:
    au = cli.add("audit", cmd_audit, "materialize extraction and verdict partitions and everything downstream")
    au.add_argument("--models", help="comma-separated registered model names (required)")
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
