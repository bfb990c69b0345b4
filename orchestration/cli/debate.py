"""`lhl debate`: the typed debate over a stored subset for one backbone, through Dagster.

For each run it materializes `debate_outcomes` and `debate_verdicts` of the (backbone, run) partition (after
`debate_calibration` of the backbone for a calibrated debate), then the SQL models and checks, on the home's
own Dagster instance, as `lhl audit` does; then prints the debate's effects. `--dry-run` prints the calls,
tokens and cost it would spend and calls nothing.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError, parse_runs

if TYPE_CHECKING:
    from dagster import DagsterInstance


Say = Callable[[str], None]
DEMO_BACKBONE = "sim-inventor"
DEMO_SUBSET = "demo-debate"
DEMO_SUBSET_SIZE = 12  # the whole demo corpus, so every demo system is compared on the same contracts
DEMO_SUBSET_SEED = 0


class DebateLaunchError(RuntimeError):
    pass


def _all_assets() -> list[Any]:
    """The code location's assets and checks, with the debate's (should the code location not list them)."""
    from assets.debate import DEBATE_ASSETS
    from orchestration.definitions import defs

    listed: list[Any] = [*(defs.assets or []), *(defs.asset_checks or [])]
    return listed + [a for a in DEBATE_ASSETS if not any(a is b for b in listed)]


def _materialize(home: Home, instance: DagsterInstance, selection: list[Any], what: str,
                 run_config: dict[str, Any] | None = None, tags: dict[str, str] | None = None,
                 partition_key: Any = None) -> None:
    from dagster import materialize

    from resources import LhlHome

    quiet = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
    result = materialize(_all_assets(), selection=selection, instance=instance, partition_key=partition_key,
                         resources={"lhl": LhlHome(path=str(home.root))}, run_config={**quiet, **(run_config or {})},
                         raise_on_error=False, tags={"lhl/launched_by": "cli", **(tags or {})})
    if not result.success:
        from orchestration.failures import failure_detail  # the step's underlying error, not only its name

        detail = failure_detail(result.all_events) or "see `lhl ui` for the run's logs"
        raise DebateLaunchError(f"{what} failed: {detail}")


def launch_debate(home: Home, backbone: str, runs: Sequence[int], subset: str, config: str = "calibrated",
                  judge: str | None = None, say: Say = print) -> None:
    """Materialize the debate of `backbone` over `subset` for each run, then the SQL models and checks."""
    from assets.debate import debate_calibration, debate_outcomes, debate_verdicts
    from assets.partitions import audit_key
    from lhl_platform.registry import get_model
    from orchestration.launch import ensure_partitions, instance_for, materialize_metrics

    spec = get_model(home, backbone)
    tags = {"lhl/provider": spec.provider, "lhl/model": backbone}
    instance = instance_for(home)
    try:
        ensure_partitions(instance, [backbone], runs)
        if config == "calibrated":
            say(f"calibrating the debate from {backbone}'s measured profile ...")
            _materialize(home, instance, [debate_calibration], f"debate calibration of {backbone}",
                         run_config={"ops": {"debate_calibration": {"config": {"judge": judge}}}}, tags=tags,
                         partition_key=backbone)
        for step, run in enumerate(runs, start=1):
            say(f"[{step}/{len(runs)}] debating {backbone}, run {run}, over subset {subset} ({config}) ...")
            _materialize(home, instance, [debate_outcomes, debate_verdicts], f"debate {backbone}/run {run}",
                         run_config={"ops": {"debate_outcomes": {"config": {"subset": subset, "config": config}},
                                             "debate_verdicts": {"config": {"judge": judge}}}},
                         tags={**tags, "lhl/run": str(run)}, partition_key=audit_key(backbone, run))
        say("building SQL models and running checks ...")
        materialize_metrics(home, instance)
    finally:
        instance.dispose()


def _missing_baselines(home: Home, backbone: str, runs: Sequence[int], contract_ids: set[str]) -> list[int]:
    from lhl_platform.domain.taxonomy import CLAUSE_TYPES
    from lhl_platform.extraction.engine import extraction_stream, instance_key

    missing = []
    streams = set(home.events.streams())
    for run in runs:
        stream = extraction_stream(backbone, run)
        have = home.events.keys(stream) if stream in streams else set()
        if not any(instance_key(backbone, run, cid, t) in have for cid in contract_ids for t in CLAUSE_TYPES):
            missing.append(run)
    return missing


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def _print_estimate(home: Home, backbone: str, runs: list[int], subset: str, config: str, judge: str | None) -> int:
    from lhl_platform.audit import resolve
    from lhl_platform.debate.calibration import latest_calibration
    from lhl_platform.debate.config import GENERIC
    from lhl_platform.debate.estimate import EXPECTED_CALLS, MAX_CALLS, estimate_debate
    from lhl_platform.registry import get_model, primary_judge

    inputs = resolve(home, backbone, subset=subset)
    judge_spec = get_model(home, judge or primary_judge(home))
    chosen = GENERIC if config == "generic" else getattr(latest_calibration(home.events, backbone), "config", None)
    rows = estimate_debate(home.events, inputs.spec, runs, inputs.contracts, inputs.corpus.oracle, judge_spec,
                           chosen)
    print(f"Dry run: {backbone} debating {len(inputs.contracts)} contracts x 41 clause types of subset {subset} "
          f"x {len(runs)} run(s), config {config}; nothing is called. About {EXPECTED_CALLS:.2f} calls per "
          f"instance expected (4 to {MAX_CALLS}); tokens at about 4 characters per token; instances already "
          "decided are not counted.")
    print(f"{'run':>3} {'instances':>9} {'done':>6} {'calls':>8} {'at most':>8} {'input tok':>12} {'output tok':>11} "
          f"{'cost':>10} {'at most':>10}  {'judge calls':>11} {'judge cost':>10}")
    for r in rows:
        print(f"{r.run:>3} {r.instances:>9,} {r.already_decided:>6,} {r.calls:>8,} {r.max_calls:>8,} "
              f"{r.input_tokens:>12,} {r.output_tokens:>11,} ${r.cost_usd:>9.2f} ${r.max_cost_usd:>9.2f}  "
              f"{r.judge_calls:>11,} ${r.judge_cost_usd:>9.2f}")
    total = sum(r.cost_usd + r.judge_cost_usd for r in rows)
    print(f"total: {sum(r.calls for r in rows):,} debate calls (at most {sum(r.max_calls for r in rows):,}), "
          f"{sum(r.judge_calls for r in rows):,} judge calls at most, about ${total:,.2f} at registered prices "
          f"({inputs.spec.name}: ${inputs.spec.price.input_per_mtok:g}/${inputs.spec.price.output_per_mtok:g} "
          "per million input/output tokens)")
    return 0


def cmd_debate(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.audit import select_contracts
    from lhl_platform.factory import build_model
    from lhl_platform.registry import get_model, primary_judge
    from lhl_platform.report.build import build_report

    runs = parse_runs(args.runs)
    spec = get_model(home, args.backbone)
    if spec.role != "extractor":
        raise CliError(f"{args.backbone} is registered as a {spec.role}; a debate needs an extractor backbone")
    contracts = select_contracts(home, subset=args.subset)
    if args.dry_run:
        return _print_estimate(home, args.backbone, runs, args.subset, args.config, args.judge)
    judge = get_model(home, args.judge or primary_judge(home))
    if spec.provider != "offline":
        build_model(spec)  # a missing API key fails here, before any work
    build_model(judge)
    missing = _missing_baselines(home, args.backbone, runs, {c.contract_id for c in contracts})
    if missing:
        raise CliError(f"{args.backbone} has no extractions of subset {args.subset} in run(s) "
                       f"{', '.join(map(str, missing))}; audit first: lhl audit --models {args.backbone} "
                       f"--runs {','.join(map(str, missing))} --subset {args.subset}")
    started = time.perf_counter()
    launch_debate(home, args.backbone, runs, args.subset, args.config, args.judge)
    report = build_report(home, resamples=200)
    rows = [r for r in report.debate_effects if r.backbone == args.backbone and r.run in runs]
    from lhl_platform.report.render import render_debate_effects

    print(render_debate_effects(rows))
    print(f"debate finished in {time.perf_counter() - started:.1f}s; see `lhl report` (the debate system is ranked "
          f"as {args.backbone}+debate) or `lhl ui` for lineage")
    return 0


def demo_debate(home: Home, runs: Sequence[int], say: Say = print) -> None:
    """The demo's debate: the fabricating simulated backbone over a small seeded subset of the demo corpus,
    calibrated from its audit, for every run the demo audited."""
    from lhl_platform.corpus.store import load_corpus
    from lhl_platform.corpus.subsets import draw_subset, save_subset, stored_subsets

    if DEMO_SUBSET not in stored_subsets(home):
        save_subset(home, draw_subset(load_corpus(home), DEMO_SUBSET, DEMO_SUBSET_SIZE, DEMO_SUBSET_SEED))
    say(f"debate: {DEMO_BACKBONE} over subset {DEMO_SUBSET} ({DEMO_SUBSET_SIZE} contracts, seed {DEMO_SUBSET_SEED}),"
        " calibrated from its audit, offline roles")
    launch_debate(home, DEMO_BACKBONE, runs, DEMO_SUBSET, "calibrated", say=say)


def register(cli: Cli) -> None:
    db = cli.add("debate", cmd_debate, "the typed six-role debate over a stored subset, calibrated from the "
                                       "backbone's audit; judged and reported beside the base")
    db.add_argument("--backbone", required=True, help="registered extractor whose extractions are debated")
    db.add_argument("--runs", default="1", help="comma-separated audited runs (default 1)")
    db.add_argument("--subset", required=True, help="stored subset of contracts (lhl subset create)")
    db.add_argument("--config", choices=["calibrated", "generic"], default="calibrated",
                    help="calibrated from the backbone's measured profile (default), or the generic ablation")
    db.add_argument("--judge", help="evaluation judge for the debated outputs (default: the primary judge)")
    db.add_argument("--dry-run", action="store_true", help="estimate calls, tokens and cost; call nothing")
