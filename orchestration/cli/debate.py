"""`lhl debate`: the typed debate over a stored subset for one backbone, through Dagster.

It launches, through the one run path (`orchestration.runs`, `orchestration.launch`), the backbone's
`debate_calibrate` job (for a calibrated debate) and, per run, the `debate_partition` job of the (backbone, run)
partition (`debate_outcomes`, `debate_verdicts`), then the SQL models and checks, on the home's own Dagster
instance, as `lhl audit` does; then prints the debate's effects. `--queue` hands the same runs to the daemon;
`--dry-run` prints the calls, tokens and cost it would spend and calls nothing.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError, parse_runs
from orchestration.cli.spending import add_max_cost, limited, max_cost, refuse_unknown_cost, scope_of

if TYPE_CHECKING:
    from orchestration.runs import Launch


Say = Callable[[str], None]


def debate_launches(home: Home, backbone: str, runs: Sequence[int], subset: str, config: str = "calibrated",
                    judge: str | None = None, launched_by: str = "cli") -> list[Launch]:
    """The runs a debate takes, as every launcher launches them: the backbone's calibration (for a calibrated
    debate), then one debate partition per run."""
    from lhl_platform.clause.suite import CALIBRATE_JOB, DEBATE_JOB
    from orchestration.runs import job_launch

    launches = []
    if config == "calibrated":
        launches.append(job_launch(home, CALIBRATE_JOB, launched_by, model=backbone,
                                   config={"debate_calibration": {"judge": judge}},
                                   what=f"debate calibration of {backbone}"))
    launches += [job_launch(home, DEBATE_JOB, launched_by, model=backbone, run=run,
                            config={"debate_outcomes": {"subset": subset, "config": config},
                                    "debate_verdicts": {"judge": judge}},
                            run_key=f"debate:{backbone}:{run}:{subset}:{config}", what=f"debate {backbone}/run {run}")
                 for run in runs]
    return launches


def launch_debate(home: Home, backbone: str, runs: Sequence[int], subset: str, config: str = "calibrated",
                  judge: str | None = None, say: Say = print) -> None:
    """Run the debate of `backbone` over `subset` for each run in this process, then the SQL models and checks."""
    from orchestration.launch import ensure_partitions, execute, instance_for, materialize_metrics

    instance = instance_for(home)
    try:
        ensure_partitions(instance, [backbone], runs)
        for launch in debate_launches(home, backbone, runs, subset, config, judge):
            say(f"{launch.what} ({config}, subset {subset}) ...")
            execute(home, instance, launch)
        say("building SQL models and running checks ...")
        materialize_metrics(home, instance)
    finally:
        instance.dispose()


def baselines(home: Home, backbone: str, runs: Sequence[int], contract_ids: set[str],
              corpus_id: str) -> dict[int, set[tuple[str, str]]]:
    """Per run, the (contract, clause type) instances of these contracts the backbone has an extraction of in the
    corpus: a debate decides these and only these."""
    from lhl_platform.clause.judging import recorded_extractions

    streams = set(home.events.streams())
    from lhl_platform.clause.extraction.engine import extraction_stream

    return {run: {(x.contract_id, x.clause_type) for x in recorded_extractions(home.events, backbone, run)
                  if x.corpus_id == corpus_id and x.contract_id in contract_ids}
            if extraction_stream(backbone, run) in streams else set() for run in runs}


def baseline_lines(backbone: str, subset: str, contract_ids: set[str], found: dict[int, set[tuple[str, str]]]
                   ) -> list[str]:
    """What a debate of the subset decides per run, and what it cannot (no baseline), with the command that
    would audit those contracts first."""
    from lhl_platform.domain.taxonomy import CLAUSE_TYPES

    total = len(contract_ids) * len(CLAUSE_TYPES)
    lines = []
    for run, instances in found.items():
        lacking = total - len(instances)
        contracts = len(contract_ids - {cid for cid, _ in instances})
        line = (f"run {run}: {len(instances):,} of the {total:,} instances of subset {subset} have a baseline of "
                f"{backbone} and are debated")
        if lacking:
            line += (f"; {lacking:,} lack one ({contracts} of {len(contract_ids)} contracts without any) and are not "
                     f"debated: `lhl audit --models {backbone} --runs {run} --subset {subset}` extracts them first")
        lines.append(line)
    return lines


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def _print_estimate(home: Home, backbone: str, runs: list[int], subset: str, config: str, judge: str | None) -> int:
    from lhl_platform.clause.audit import resolve
    from lhl_platform.clause.debate.calibration import latest_calibration
    from lhl_platform.clause.debate.config import GENERIC
    from lhl_platform.clause.debate.estimate import EXPECTED_CALLS, MAX_CALLS, estimate_debate
    from lhl_platform.registry import get_judge, primary_judge

    inputs = resolve(home, backbone, subset=subset)
    judge_spec = get_judge(home, judge or primary_judge(home))
    chosen = GENERIC if config == "generic" else getattr(latest_calibration(home.events, backbone), "config", None)
    ids = {c.contract_id for c in inputs.contracts}
    found = baselines(home, backbone, runs, ids, inputs.corpus_id)
    rows = estimate_debate(home.events, inputs.spec, runs, inputs.contracts, inputs.corpus.oracle, judge_spec,
                           chosen, found)
    print(f"Dry run: {backbone} debating the instances with a baseline among the {len(inputs.contracts)} contracts "
          f"x 41 clause types of subset {subset} x {len(runs)} run(s), config {config}; nothing is called. About "
          f"{EXPECTED_CALLS:.2f} calls per instance expected (4 to {MAX_CALLS}); tokens at about 4 characters per "
          "token; instances already decided are not counted.")
    for line in baseline_lines(backbone, subset, ids, found):
        print(line)
    print(f"{'run':>3} {'instances':>9} {'no base':>7} {'done':>6} {'calls':>8} {'at most':>8} {'input tok':>12} "
          f"{'output tok':>11} {'cost':>10} {'at most':>10}  {'judge calls':>11} {'judge cost':>10}")
    for r in rows:
        print(f"{r.run:>3} {r.instances:>9,} {r.without_baseline:>7,} {r.already_decided:>6,} {r.calls:>8,} "
              f"{r.max_calls:>8,} "
              f"{r.input_tokens:>12,} {r.output_tokens:>11,} ${r.cost_usd:>9.2f} ${r.max_cost_usd:>9.2f}  "
              f"{r.judge_calls:>11,} ${r.judge_cost_usd:>9.2f}")
    total = sum(r.cost_usd + r.judge_cost_usd for r in rows)
    print(f"total: {sum(r.calls for r in rows):,} debate calls (at most {sum(r.max_calls for r in rows):,}), "
          f"{sum(r.judge_calls for r in rows):,} judge calls at most, about ${total:,.2f} at registered prices "
          f"({inputs.spec.name}: ${inputs.spec.price.input_per_mtok:g}/${inputs.spec.price.output_per_mtok:g} "
          "per million input/output tokens)")
    return 0


def cmd_debate(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.clause.audit import select_contracts
    from lhl_platform.clause.report.build import build_report
    from lhl_platform.corpus.store import active_corpus_id
    from lhl_platform.factory import build_model
    from lhl_platform.registry import get_judge, get_model, primary_judge

    runs = parse_runs(args.runs)
    spec = get_model(home, args.backbone)
    if spec.role != "extractor":
        raise CliError(f"{args.backbone} is registered as a {spec.role}; a debate needs an extractor backbone")
    contracts = select_contracts(home, subset=args.subset)
    judge = get_judge(home, args.judge or primary_judge(home))  # an unknown judge is an error, dry run or not
    if args.dry_run:
        return _print_estimate(home, args.backbone, runs, args.subset, args.config, args.judge)
    if spec.provider != "offline":
        build_model(spec)  # a missing API key fails here, before any work
    build_model(judge)
    limit_usd = max_cost(args)
    refuse_unknown_cost(home, [spec.name, judge.name], limit_usd is not None)
    ids = {c.contract_id for c in contracts}
    found = baselines(home, args.backbone, runs, ids, active_corpus_id(home))
    missing = [run for run, instances in found.items() if not instances]
    if missing:
        raise CliError(f"{args.backbone} has no extractions of subset {args.subset} in run(s) "
                       f"{', '.join(map(str, missing))}; audit first: lhl audit --models {args.backbone} "
                       f"--runs {','.join(map(str, missing))} --subset {args.subset}")
    for line in baseline_lines(args.backbone, args.subset, ids, found):  # before any call, not after
        print(line)
    if args.queue:
        from orchestration.launch import submit

        queued = submit(home, debate_launches(home, args.backbone, runs, args.subset, args.config, args.judge))
        print(f"queued {len(queued)} debate run(s) for the daemon of {home.root} (`lhl daemon`); the marts and "
              "checks are rebuilt once they have finished")
        return 0
    from orchestration.cli.audit import own_alerts

    started = time.perf_counter()
    with own_alerts("clause"):  # the debate is the clause suite's: the other suites' alerts stay off the terminal
        stopped = limited(home, limit_usd, scope_of("debate", [args.backbone], runs),
                          lambda: launch_debate(home, args.backbone, runs, args.subset, args.config, args.judge))
    if stopped is not None:
        return stopped
    report = build_report(home, resamples=200)
    rows = [r for r in report.debate_effects if r.backbone == args.backbone and r.run in runs]
    from lhl_platform.clause.report.render import render_debate_effects

    print(render_debate_effects(rows))
    print(f"debate finished in {time.perf_counter() - started:.1f}s; see `lhl report --subset {args.subset} --runs "
          f"{','.join(map(str, runs))}`, the scope it covers, where {args.backbone}+debate is ranked beside its base "
          "(in a wider scope it is listed with its coverage), or `lhl ui` for lineage")
    return 0


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
    db.add_argument("--queue", action="store_true", help="hand the debate runs to the daemon's queue (`lhl daemon`)")
    add_max_cost(db, "the debate (its role calls and its judge's)")
