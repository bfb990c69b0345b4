"""`lhl`: the command-line entry point (SPEC section 7), domain commands.

Every command takes `--home DIR` (env `LHL_HOME`, default `./.lhl`). Exit code 0 on success; on
failure a one-line reason on stderr and a non-zero code. Commands that launch Dagster runs (demo,
audit, ui, models add) are added by `orchestration.cli`, which keeps this package free of Dagster.
Heavy imports happen inside commands so that `lhl --help` and `lhl report` start quickly.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from lhl_platform.home import Home

Command = Callable[[argparse.Namespace, Home], int]


class CliError(Exception):
    """A failure to report as one line on stderr."""


def cmd_ingest(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.corpus.cuad import load_master_layout
    from lhl_platform.corpus.store import save_corpus

    corpus = load_master_layout(args.path)
    corpus_id = save_corpus(home, corpus, source=str(args.path))
    print(f"contracts: {len(corpus.contracts)}")
    print(f"instances: {len(corpus.oracle)}")
    print(f"present:   {corpus.n_present}")
    print(f"corpus id: {corpus_id} (stored in {home.root})")
    return 0


def cmd_verify(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.events.verify import verify_log

    report = verify_log(home.events)
    if not report.ok:
        raise CliError(f"event log altered: {report.problem}")
    print(f"event log intact: {report.streams} streams, {report.segments} segments, {report.events} events")
    return 0


def cmd_models_list(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.registry import list_models

    models = list_models(home)
    if not models:
        print("no models registered; add one with `lhl models add NAME --provider offline --model-id lexical`")
    for m in models:
        extra = f" base_url={m.base_url}" if m.base_url else ""
        params = f" params={json.dumps(m.params)}" if m.params else ""
        print(f"{m.name:<24} {m.role:<9} {m.provider}:{m.model_id}{extra}{params}")
    return 0


def cmd_models_remove(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.registry import remove_model

    remove_model(home, args.name)
    print(f"removed {args.name} from the registry (its audit history stays in the event log)")
    return 0


def cmd_subset_create(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.corpus.store import load_corpus
    from lhl_platform.corpus.subsets import draw_subset, save_subset

    subset = draw_subset(load_corpus(home), args.name, args.size, args.seed, args.stratify)
    save_subset(home, subset)
    print(f"subset {subset.name}: {len(subset.contract_ids)} contracts (seed {subset.seed})")
    return 0


def cmd_import(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.importer import import_outcomes
    from lhl_platform.warehouse.build import build_warehouse

    rows, written = import_outcomes(home, Path(args.file))
    build_warehouse(home)
    print(f"imported {rows} rows ({written} new, {rows - written} already recorded); SQL models rebuilt")
    return 0


def cmd_report(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.report import build_report, build_report_with_checks, render_csv, render_json, render_text

    if not home.events.has_events():
        raise CliError(f"nothing to report in {home.root}: run `lhl demo`, `lhl audit` or `lhl import outcomes`")
    options = {"resamples": args.resamples, "seed": args.seed, "cluster": args.bootstrap == "contract"}
    if args.format == "json":
        text = render_json(build_report(home, **options))
    elif args.format == "csv":
        text = render_csv(build_report(home, **options))
    else:
        report, checks = build_report_with_checks(home, **options)
        text = render_text(report, checks, markdown=args.format == "md")
    if args.out:
        Path(args.out).write_text(text if text.endswith("\n") else text + "\n")
        print(f"wrote {args.format} report to {args.out}")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def cmd_judge(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.judging.single import judge_pairs

    if args.pairs:
        lines = Path(args.pairs).read_text(encoding="utf-8").splitlines()
        failures = 0
        for result in judge_pairs(home, args.judge, lines):
            failures += "error" in result
            print(json.dumps(result, ensure_ascii=False))
        if failures:
            raise CliError(f"{failures} of {len(lines)} pairs could not be judged (see their error lines)")
        return 0
    if args.clause_type is None or args.truth is None or args.extracted is None:
        raise CliError("give --clause-type, --truth and --extracted, or --pairs FILE.jsonl")
    line = json.dumps({"clause_type": args.clause_type, "truth": args.truth, "extracted": args.extracted})
    (result,) = judge_pairs(home, args.judge, [line])
    if "error" in result:
        raise CliError(result["error"])
    print(json.dumps({k: result[k] for k in ("verdict", "mismatch_type", "reason")}, ensure_ascii=False))
    return 0


class Cli:
    """The parser and its command groups, so that `orchestration.cli` can add commands to them."""

    def __init__(self) -> None:
        self.parser = argparse.ArgumentParser(
            prog="lhl", description="LegalHalluLens: typed hallucination audits of contract clause extraction.")
        self.parser.add_argument("--home", help="home folder (env LHL_HOME, default ./.lhl)")
        self.commands = self.parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
        self.groups: dict[str, argparse._SubParsersAction[argparse.ArgumentParser]] = {}

    def group(self, name: str, help: str) -> argparse._SubParsersAction[argparse.ArgumentParser]:
        if name not in self.groups:
            sub = self.commands.add_parser(name, help=help, description=help)
            self.groups[name] = sub.add_subparsers(dest=f"{name}_command", required=True, metavar="COMMAND")
        return self.groups[name]

    def add(self, name: str, func: Command, help: str, group: str | None = None) -> argparse.ArgumentParser:
        where = self.groups[group] if group else self.commands
        p = where.add_parser(name, help=help, description=help)
        p.add_argument("--home", default=argparse.SUPPRESS, help="home folder (env LHL_HOME, default ./.lhl)")
        p.set_defaults(func=func)
        return p

    def run(self, argv: Sequence[str] | None = None) -> int:
        args = self.parser.parse_args(argv)
        home = Home.resolve(getattr(args, "home", None))
        try:
            code: int = args.func(args, home)
            return code
        except KeyboardInterrupt:
            print("lhl: interrupted", file=sys.stderr)
            return 130
        except (CliError, ValueError, OSError, RuntimeError, LookupError) as exc:
            message = " ".join(str(exc).split()) or type(exc).__name__
            print(f"lhl: {message}", file=sys.stderr)
            return 1


def build_cli() -> Cli:
    cli = Cli()
    cli.group("ingest", "load a corpus into the home")
    cuad = cli.add("cuad", cmd_ingest, "load a CUAD v1 folder (master_clauses.csv + full_contract_txt/)", "ingest")
    cuad.add_argument("path", help="the CUAD v1 folder")
    cli.add("verify", cmd_verify, "check the event log's hash chain; non-zero exit when anything was altered")

    cli.group("models", "the model registry (each model is a `model` partition key)")
    cli.add("list", cmd_models_list, "list registered models", "models")
    rm = cli.add("remove", cmd_models_remove, "unregister a model (its history is kept)", "models")
    rm.add_argument("name")

    cli.group("subset", "named, stored contract subsets")
    sc = cli.add("create", cmd_subset_create, "draw a reproducible subset of the active corpus", "subset")
    sc.add_argument("name")
    sc.add_argument("--size", type=int, required=True)
    sc.add_argument("--seed", type=int, default=0)
    sc.add_argument("--stratify", choices=["numeric", "temporal", "factual", "obligation"],
                    help="keep the share of contracts holding this category's clauses")

    cli.group("import", "bring outcomes scored elsewhere")
    imp = cli.add("outcomes", cmd_import, "import instance outcomes from CSV or Parquet (SPEC 7 columns)", "import")
    imp.add_argument("file")

    rep = cli.add("report", cmd_report, "leaderboard, per-run, typed profiles, gaps, RDI intervals, composite ranks")
    rep.add_argument("--format", choices=["table", "json", "csv", "md"], default="table")
    rep.add_argument("--out", help="write to FILE instead of stdout")
    rep.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    rep.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    rep.add_argument("--bootstrap", choices=["instance", "contract"], default="instance",
                     help="resampling unit for RDI intervals: contradicted instances (default) or contracts")

    jd = cli.add("judge", cmd_judge, "judge one (truth, extracted) pair, or many from --pairs FILE.jsonl")
    jd.add_argument("--clause-type")
    jd.add_argument("--truth")
    jd.add_argument("--extracted")
    jd.add_argument("--pairs", help="JSONL: clause_type, truth, extracted, optional id; one JSON line out per pair")
    jd.add_argument("--judge", default="rubric", help="registered judge model (default: the offline rubric judge)")
    return cli


def main(argv: Sequence[str] | None = None) -> int:
    return build_cli().run(argv)


if __name__ == "__main__":
    sys.exit(main())
