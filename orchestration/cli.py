"""The `lhl` console script: the domain commands plus those that launch Dagster (demo, audit, ui, models add)."""

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence

from lhl_platform.cli import Cli, CliError, build_cli
from lhl_platform.domain.models import Contract
from lhl_platform.home import Home

DEMO_MODELS = (
    ("lexical", "lexical", "cue-pattern extractor (a real baseline; the demo's plain drafting suits its cues)"),
    ("sim-inventor", "simulated:inventor", "calibration: invents conditions (declared RDI +0.16)"),
    ("sim-omitter", "simulated:omitter", "calibration: drops conditions (declared RDI -0.205)"),
    ("sim-balanced", "simulated:balanced", "calibration: over-eager detector, balanced direction"),
)


def _parse_list(text: str, what: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise CliError(f"--{what} needs at least one value")
    return items


def _runs(text: str) -> list[int]:
    try:
        runs = [int(r) for r in _parse_list(text, "runs")]
    except ValueError:
        raise CliError(f"--runs must be comma-separated integers, got {text!r}") from None
    if any(r < 1 for r in runs):
        raise CliError("--runs must be positive")
    return runs


def cmd_models_add(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.domain.models import ModelSpec, Price
    from lhl_platform.registry import add_model
    from orchestration.launch import ensure_partitions, instance_for

    params = json.loads(args.params) if args.params else {}
    if args.monitor:
        params["monitor"] = True
    spec = ModelSpec(name=args.name, provider=args.provider, model_id=args.model_id, base_url=args.base_url,
                     params=params, role=args.role,
                     price=Price(input_per_mtok=args.input_price, output_per_mtok=args.output_price))
    added = add_model(home, spec)
    if spec.role == "extractor":
        instance = instance_for(home)
        try:
            ensure_partitions(instance, [spec.name], [])
        finally:
            instance.dispose()
    print(f"{'registered' if added else 'already registered'}: {spec.name} ({spec.provider}:{spec.model_id})")
    return 0


def cmd_audit(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.audit import select_contracts
    from lhl_platform.providers.factory import build_model
    from lhl_platform.registry import get_model
    from orchestration.launch import audit

    models = _parse_list(args.models, "models")
    runs = _runs(args.runs)
    contracts = select_contracts(home, args.contracts, args.subset)
    if args.dry_run:
        return _print_estimate(home, models, runs, contracts, args.judge)
    for name in [*models, args.judge]:
        build_model(get_model(home, name))  # unknown model or missing API key: fail before any work
    started = time.perf_counter()
    audit(home, models, runs, contracts_limit=args.contracts, subset=args.subset, judge=args.judge)
    print(f"audit finished in {time.perf_counter() - started:.1f}s; see `lhl report` (or `lhl ui` for lineage)")
    return 0


def _print_estimate(home: Home, models: list[str], runs: list[int], contracts: list[Contract], judge: str) -> int:
    from lhl_platform.estimate import estimate_audit

    rows = estimate_audit(home, models, runs, contracts, judge)
    print(f"Dry run: {len(contracts)} contracts x {len(runs)} run(s); nothing is called. Tokens are estimates "
          "(about 4 characters per token); work already in the event log is not counted.")
    print(f"{'model':<20} {'run':>3} {'calls':>7} {'input tok':>12} {'output tok':>11} {'cost':>10}  "
          f"{'judge calls':>11} {'judge cost':>10}")
    for r in rows:
        print(f"{r.model:<20} {r.run:>3} {r.calls:>7,} {r.input_tokens:>12,} {r.output_tokens:>11,} "
              f"${r.cost_usd:>9.2f}  {r.judge_calls:>11,} ${r.judge_cost_usd:>9.2f}")
    total = sum(r.cost_usd + r.judge_cost_usd for r in rows)
    print(f"total: {sum(r.calls for r in rows):,} extraction calls, {sum(r.judge_calls for r in rows):,} judge calls, "
          f"about ${total:,.2f} at registered prices")
    return 0


def cmd_demo(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.corpus.demo import DEMO_DIR
    from lhl_platform.domain.models import ModelSpec
    from lhl_platform.registry import add_model
    from lhl_platform.report import build_report_with_checks, render_text
    from orchestration.launch import audit, instance_for, materialize_corpus

    started = time.perf_counter()
    say = lambda text: print(f"[{time.perf_counter() - started:5.1f}s] {text}", flush=True)  # noqa: E731
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
    audit(home, [m[0] for m in DEMO_MODELS], runs, say=say)
    report, checks = build_report_with_checks(home)
    say("done\n")
    print(render_text(report, checks))
    print(f"Next: `lhl report --format json`, `lhl verify`, `lhl ui --home {home.root}` to inspect lineage.")
    return 0


def cmd_ui(args: argparse.Namespace, home: Home) -> int:
    home.ensure()
    env = {**os.environ, "DAGSTER_HOME": str(home.dagster_dir), "LHL_HOME": str(home.root)}
    command = [sys.executable, "-m", "dagster", "dev", "-m", "orchestration.definitions",
               "--host", args.host, "--port", str(args.port)]
    print(f"Dagster UI for {home.root} on http://{args.host}:{args.port} (Ctrl-C to stop)", flush=True)
    try:
        return subprocess.call(command, env=env)
    except KeyboardInterrupt:
        return 0


def build_full_cli() -> Cli:
    cli = build_cli()
    add = cli.add("add", cmd_models_add, "register a model; adds its key to the `model` partitions", "models")
    add.add_argument("name", help="partition key: letters, digits, . _ : - (max 64)")
    add.add_argument("--provider", required=True, help="offline, openai, anthropic or gemini")
    add.add_argument("--model-id", required=True, help="e.g. lexical, simulated:omitter, rubric, gpt-5.2")
    add.add_argument("--base-url", help="OpenAI-compatible server (vLLM, Ollama, ...)")
    add.add_argument("--role", choices=["extractor", "judge"], default="extractor")
    add.add_argument("--params", help="JSON object of model parameters (temperature, concurrency, ...)")
    add.add_argument("--monitor", action="store_true", help="include in recurring post-deployment audits")
    add.add_argument("--input-price", type=float, default=0.0, help="USD per million input tokens")
    add.add_argument("--output-price", type=float, default=0.0, help="USD per million output tokens")

    au = cli.add("audit", cmd_audit, "materialize extraction and verdict partitions and everything downstream")
    au.add_argument("--models", required=True, help="comma-separated registered model names")
    au.add_argument("--runs", default="1", help="comma-separated run numbers (default 1)")
    au.add_argument("--contracts", type=int, help="only the first N contracts (by id)")
    au.add_argument("--subset", help="a stored subset (lhl subset create)")
    au.add_argument("--judge", default="rubric", help="evaluation judge (default: the offline rubric judge)")
    au.add_argument("--dry-run", action="store_true", help="estimate calls, tokens and cost; call nothing")

    demo = cli.add("demo", cmd_demo, "offline end-to-end audit of the bundled demo corpus through Dagster")
    demo.add_argument("--runs", type=int, default=2, choices=range(1, 6), metavar="N",
                      help="runs per model (default 2)")

    ui = cli.add("ui", cmd_ui, "the Dagster UI for this home (lineage, partitions, checks, schedules)")
    ui.add_argument("--host", default="127.0.0.1")
    ui.add_argument("--port", type=int, default=3000)
    return cli


def main(argv: Sequence[str] | None = None) -> int:
    return build_full_cli().run(argv)


if __name__ == "__main__":
    sys.exit(main())
