"""`lhl ingest`, `lhl subset`, `lhl import`: what the audits are computed over."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError


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


def cmd_subset_create(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.corpus.store import load_corpus
    from lhl_platform.corpus.subsets import draw_subset, listed_subset, save_subset
    from lhl_platform.domain.models import Subset

    subset: Subset
    if args.contracts:
        subset = listed_subset(home, args.name, _listed_ids(Path(args.contracts)))
        how = f"listed in {args.contracts}"
    elif args.size is not None:
        subset = draw_subset(load_corpus(home), args.name, args.size, args.seed, args.stratify)
        how = f"seed {subset.seed}"
    else:
        raise CliError("give --size N (a seeded draw) or --contracts FILE (one contract id per line)")
    new = save_subset(home, subset)
    print(f"subset {subset.name}: {len(subset.contract_ids)} contracts ({how})"
          + ("" if new else "; already recorded with these contracts, nothing new"))
    return 0


def cmd_import(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.clause.importer import import_outcomes
    from lhl_platform.warehouse.build import build_warehouse

    listed = _listed_ids(Path(args.contracts)) if args.contracts else None
    rows, written = import_outcomes(home, Path(args.file), subset=args.subset, contracts=listed,
                                    warn=lambda text: print(f"lhl: warning: {text}", file=sys.stderr))
    build_warehouse(home)
    covers = (f"subset {args.subset}" if args.subset else f"the {len(listed or [])} contracts of {args.contracts}"
              if args.contracts else "every contract of the file")
    print(f"imported {rows} rows ({written} new, {rows - written} already recorded); each (model, run) covers "
          f"{covers}, so what a model lacks there counts as missing rows; SQL models rebuilt")
    return 0


def _listed_ids(path: Path) -> list[str]:
    # Ids are kept exactly as written (a few CUAD ids end in a space); only blank lines are skipped.
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def cmd_subset_list(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.corpus.subsets import stored_subsets

    subsets = stored_subsets(home)
    if not subsets:
        print("no subsets stored; create one with `lhl subset create NAME --size N` or `--contracts FILE`")
    for s in sorted(subsets.values(), key=lambda s: s.name):
        how = (f"seed {s.seed}" + (f", stratified by {s.stratified_by}" if s.stratified_by else "")
               if s.seed is not None else "listed")
        print(f"{s.name:<24} {len(s.contract_ids):>5} contracts  ({how})")
    return 0


def register(cli: Cli) -> None:
    cli.group("ingest", "load a corpus into the home")
    cuad = cli.add("cuad", cmd_ingest, "load a CUAD v1 folder (master_clauses.csv + full_contract_txt/)", "ingest")
    cuad.add_argument("path", help="the CUAD v1 folder")

    cli.group("subset", "named, stored contract subsets")
    sc = cli.add("create", cmd_subset_create, "draw a reproducible subset of the active corpus, or store a listed one",
                 "subset")
    sc.add_argument("name")
    sc.add_argument("--size", type=int, help="draw this many contracts (seeded)")
    sc.add_argument("--contracts", help="FILE with one contract id per line (e.g. a paper's published subset)")
    sc.add_argument("--seed", type=int, default=0)
    sc.add_argument("--stratify", choices=["numeric", "temporal", "factual", "obligation"],
                    help="keep the share of contracts holding this category's clauses")
    cli.add("list", cmd_subset_list, "list the stored subsets (name, size, how drawn)", "subset")

    cli.group("import", "bring outcomes scored elsewhere")
    imp = cli.add("outcomes", cmd_import, "import instance outcomes from CSV or Parquet", "import")
    imp.add_argument("file")
    covers = imp.add_mutually_exclusive_group()
    covers.add_argument("--subset", help="the stored subset every (model, run) of the import covers (default: every "
                                         "contract of the file, whichever model's rows name it)")
    covers.add_argument("--contracts", help="FILE with one contract id per line: the contracts every (model, run) of "
                                            "the import covers")
