"""`lhl judge`: judge (truth, extracted) pairs with a registered judge."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError


def cmd_judge(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.factory import build_model
    from lhl_platform.judging.single import judge_pairs
    from lhl_platform.registry import get_model

    spec = get_model(home, args.judge)
    model = build_model(spec)
    if args.pairs:
        lines = Path(args.pairs).read_text(encoding="utf-8").splitlines()
        failures = 0
        for result in judge_pairs(spec, model, lines):
            failures += "error" in result
            print(json.dumps(result, ensure_ascii=False))
        if failures:
            raise CliError(f"{failures} of {len(lines)} pairs could not be judged (see their error lines)")
        return 0
    if args.clause_type is None or args.truth is None or args.extracted is None:
        raise CliError("give --clause-type, --truth and --extracted, or --pairs FILE.jsonl")
    line = json.dumps({"clause_type": args.clause_type, "truth": args.truth, "extracted": args.extracted})
    (result,) = judge_pairs(spec, model, [line])
    if "error" in result:
        raise CliError(result["error"])
    print(json.dumps({k: result[k] for k in ("verdict", "mismatch_type", "reason")}, ensure_ascii=False))
    return 0


def cmd_judge_primary(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.registry import set_primary_judge

    set_primary_judge(home, args.name)
    print(f"primary judge: {args.name} (reports use its verdicts unless --judge says otherwise)")
    return 0


def register(cli: Cli) -> None:
    # `lhl judge` judges pairs; `lhl judge primary|validate|agree` are its subcommands.
    jd = cli.add("judge", cmd_judge, "judge one (truth, extracted) pair, or many from --pairs FILE.jsonl; "
                 "subcommands: primary NAME")
    jd.add_argument("--clause-type")
    jd.add_argument("--truth")
    jd.add_argument("--extracted")
    jd.add_argument("--pairs", help="JSONL: clause_type, truth, extracted, optional id; one JSON line out per pair")
    jd.add_argument("--judge", default="rubric", help="registered judge model (default: the offline rubric judge)")
    subs = jd.add_subparsers(dest="judge_command", required=False, metavar="COMMAND")
    primary = cli.add_to(subs, "primary", cmd_judge_primary, "make a registered judge the one reports use by default")
    primary.add_argument("name")
