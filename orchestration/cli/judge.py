"""`lhl judge`: judge (truth, extracted) pairs with a registered judge."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError

if TYPE_CHECKING:
    from lhl_platform.lexflip.events import JudgeValidated


def cmd_judge(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.factory import build_model
    from lhl_platform.judging.single import judge_pairs
    from lhl_platform.registry import get_judge

    spec = get_judge(home, args.judge)
    model = build_model(spec)
    if args.pairs:
        lines = Path(args.pairs).read_text(encoding="utf-8").splitlines()
        failures = 0
        for result in judge_pairs(model, lines):
            failures += "error" in result
            print(json.dumps(result, ensure_ascii=False))
        if failures:
            raise CliError(f"{failures} of {len(lines)} pairs could not be judged (see their error lines)")
        return 0
    if args.clause_type is None or args.truth is None or args.extracted is None:
        raise CliError("give --clause-type, --truth and --extracted, or --pairs FILE.jsonl")
    line = json.dumps({"clause_type": args.clause_type, "truth": args.truth, "extracted": args.extracted})
    (result,) = judge_pairs(model, [line])
    if "error" in result:
        raise CliError(result["error"])
    print(json.dumps({k: result[k] for k in ("verdict", "mismatch_type", "reason")}, ensure_ascii=False))
    return 0


def last_validation(home: Home, judge: str) -> JudgeValidated | None:
    """The judge's latest result on the dissociation suite (any corpus), or None when it was never validated."""
    from lhl_platform.lexflip.events import JudgeValidated, ValidationEvent
    from lhl_platform.lexflip.validate import validation_stream

    stream = validation_stream(judge)
    if stream not in home.events.streams():
        return None
    results = [e.data_as(JudgeValidated) for e in home.events.read(stream) if e.type == ValidationEvent.VALIDATED]
    return results[-1] if results else None


def cmd_judge_primary(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.registry import get_judge, set_primary_judge

    get_judge(home, args.name)  # an unknown judge is an error naming the judges there are
    last = last_validation(home, args.name)
    if last is not None and not last.passed and not args.force:  # every default report would rest on such verdicts
        raise CliError(f"judge {args.name} failed its last validation on the dissociation suite "
                       f"({last.suite_version}, {last.items} items): not made primary; validate it again "
                       f"(`lhl judge validate --judge {args.name}`), choose a judge that passes, or give --force")
    set_primary_judge(home, args.name)
    print(f"primary judge: {args.name} (reports use its verdicts unless --judge says otherwise)")
    if last is None:
        print(f"note: {args.name} has not been validated yet; `lhl judge validate --judge {args.name}` checks it "
              "reads legal force (reports flag an unvalidated judge)")
    elif not last.passed:
        print(f"warning: {args.name} failed its last validation on the dissociation suite "
              f"({last.suite_version}, {last.items} items), made primary because of --force: its verdicts may not "
              "read legal force and reports mark its figures", file=sys.stderr)
    return 0


def cmd_judge_validate(args: argparse.Namespace, home: Home) -> int:
    """A judge on its validation set, in-sample and held-out results apart: a clause judge on the LexFlip suite
    of the active corpus and the held-out CUAD rewrites; an InsufficiencyBench judge (`--suite insufficiency`, the
    default for the cue judge) on the hand-labelled set and its held-out paraphrases. The exit code is the
    in-sample gate's, as before; a held-out shortfall is named on stderr."""
    from lhl_platform.insufficiency.models import CUE_JUDGE
    from lhl_platform.registry import get_judge, primary_judge

    judge = args.judge or primary_judge(home)
    validation_set = args.suite or ("insufficiency" if judge == CUE_JUDGE else None)
    if validation_set is None:
        spec = get_judge(home, judge)  # an unknown judge is an error naming the judges there are
        validation_set = "insufficiency" if spec.provider == "offline" and spec.model_id == CUE_JUDGE else "lexflip"
    from lhl_platform.judging.heldout import HeldOutError

    try:
        if validation_set == "insufficiency":
            if args.samples is not None:
                raise CliError("--samples is LexFlip's (graded scores per pair); InsufficiencyBench asks no scores")
            return _validate_insufficiency(args, home, judge)
        get_judge(home, judge)
        return _validate_lexflip(args, home, judge)
    except HeldOutError as exc:  # an altered held-out set: refused, in one line
        raise CliError(str(exc)) from None


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _validate_lexflip(args: argparse.Namespace, home: Home, judge: str) -> int:
    from lhl_platform.lexflip.validate import validate_judge

    result = validate_judge(home, judge, seed=args.seed, per_kind=args.per_kind, samples=args.samples)
    held = result.held_out
    assert held is not None
    if args.format == "json":
        # Both sets are self-built: the suite edits the corpus's spans; the held-out set was written by hand.
        body = {"suite": "lexflip", "self_built": True,
                **result.model_dump(mode="json", exclude={"outcomes", "held_out"}),
                "held_out": {**held.model_dump(mode="json", exclude={"misjudged"}),
                             "misjudged": [{"item_id": o.item_id, "family": o.family.value, "kind": o.kind,
                                            "verdict": o.verdict, "mismatch_type": o.mismatch_type,
                                            "reason": o.reason} for o in held.misjudged]}}
        print(json.dumps(body, indent=2, ensure_ascii=False))
    else:
        sample = "in-sample" if result.in_sample else "not declared in-sample"
        print(f"judge {judge}: {result.items} items (suite {result.suite_version}, self-built, seed {args.seed}; "
              f"{sample}: {', '.join(f.value for f in result.in_sample) or 'no family'}) -> "
              f"{'PASSED' if result.passed else 'FAILED'}")
        for f in (*result.families, *held.families):
            mismatch = f"; right mismatch_type {f.right_mismatch:.3f} (needs {f.mismatch_threshold:.2f})" \
                if f.right_mismatch is not None and f.mismatch_threshold is not None else ""
            if f is held.families[0]:
                print(f"  held out ({held.set}, self-built, sha256 {held.sha256[:16]}; {held.items} items, never used "
                      f"to write or tune a judge) -> {'passes' if held.passed else 'FALLS SHORT'}")
            tag = " (in-sample)" if f.in_sample else ""
            print(f"  {f.family.value:<14} {f.items:>4} items  as expected {_share(f.as_expected)} (needs "
                  f"{f.threshold:.2f}){mismatch}  {'pass' if f.passed else 'FAIL'}{tag}")
        for k in (*result.kinds, *held.kinds):
            lexflip = (f"  discrimination {k.discrimination:.2f} margin {k.margin:.2f} (of means "
                       f"{_share(k.margin_of_means)})" if k.discrimination is not None and k.margin is not None else "")
            where = "held out" if k in held.kinds else "suite"
            print(f"    {where:<8} {k.family.value:<14} {k.kind:<22} {k.items:>3} items  {_share(k.as_expected)}"
                  f"{lexflip}")
    return _verdict_line(judge, result.passed, [f.family.value for f in result.families if not f.passed],
                         "the dissociation suite", held.passed, held.set,
                         [f"{f.family.value} {_share(f.as_expected)}" + (
                             f", right mismatch_type {_share(f.right_mismatch)}" if f.right_mismatch is not None
                             and f.mismatch_threshold is not None and f.right_mismatch < f.mismatch_threshold
                             else "") for f in held.families if not f.passed])


def _verdict_line(judge: str, passed: bool, failed: list[str], suite: str, held_passed: bool, held_set: str,
                  held_failed: list[str]) -> int:
    """One stderr line when the judge fails its in-sample gate (exit 2) or falls short on the held-out set."""
    if not passed:  # a judge unfit to label is a result scripts must not miss
        print(f"lhl: judge {judge} does not pass {suite} ({', '.join(failed)})", file=sys.stderr)
        return 2
    if not held_passed:
        print(f"lhl: judge {judge} passes {suite} in-sample only; on the held-out set {held_set} it falls short "
              f"({', '.join(held_failed)})", file=sys.stderr)
    return 0


def _validate_insufficiency(args: argparse.Namespace, home: Home, judge: str) -> int:
    from lhl_platform.insufficiency.stages import judge_version, resolve_judge, validate_insufficiency_judge
    from lhl_platform.insufficiency.validation import IN_SAMPLE, families_of, validate_heldout

    spec = resolve_judge(home, judge)
    from lhl_platform.factory import build_model

    version = judge_version(build_model(spec, home=home))
    result = validate_insufficiency_judge(home, spec)
    held = validate_heldout(home, spec)
    families = families_of(result, version)
    in_sample = list(IN_SAMPLE.get(version, ()))
    if args.format == "json":
        body = {"suite": "insufficiency", "self_built": True, **result.model_dump(mode="json", exclude={"outcomes"}),
                "in_sample": in_sample, "families": [f.model_dump(mode="json") for f in families],
                "held_out": {**held.model_dump(mode="json", exclude={"result"}),
                             **held.result.model_dump(mode="json", exclude={"outcomes"}),
                             "not_as_labelled": [{"case_id": o.case_id, "problems": list(o.problems)}
                                                 for o in held.result.outcomes if not o.as_labelled]}}
        print(json.dumps(body, indent=2, ensure_ascii=False))
    else:
        sample = "in-sample" if in_sample else "not declared in-sample"
        for title, r in ((f"{result.suite_version} (self-built; {sample}: {', '.join(in_sample) or 'no family'})",
                          result),
                         (f"held out: {held.set} (self-built, sha256 {held.sha256[:16]}, never used to write or tune a "
                          "judge)", held.result)):
            print(f"judge {spec.name}: {r.cases} cases of {title} -> {'PASSED' if r.passed else 'FAILED'}")
            for c in r.criteria:
                print(f"  {c.name:<26} {c.agreed:>3} of {c.total:<3} {_share(c.rate)} (needs {c.threshold:.2f})  "
                      f"{'pass' if c.passed else 'FAIL'}")
            print(f"  F2 mean abs difference     {_share(r.f2_mean_abs_diff)} (at most {r.f2_max_mean_abs_diff:.2f})")
            for f in families if r is result else ():
                print(f"  family {f.family:<22} {f.as_labelled:>3} of {f.cases:<3} cases as labelled"
                      f"{' (in-sample)' if f.in_sample else ''}")
    failed = [c.name for c in result.criteria if not c.passed] + list(result.required_failed)
    held_failed = [f"{c.name} {_share(c.rate)}" for c in held.result.criteria if not c.passed]
    return _verdict_line(spec.name, result.passed, failed or ["F2 difference too large"],
                         "the InsufficiencyBench validation set", held.result.passed, held.set,
                         held_failed or ["F2 difference too large"])


def cmd_judge_agree(args: argparse.Namespace, home: Home) -> int:
    """Two judges of the chosen suite (default: the clause suite) on the answers both judged, in its scope."""
    from orchestration.cli.suites import chosen_suite, suite_scope

    if getattr(args, "gold_version", None) is not None:  # two judges' labels of the same answers read no gold
        raise CliError("lhl judge agree compares two judges' labels of the same answers and reads no gold; "
                       "--gold-version does not apply")
    suite = chosen_suite(args)
    agreement = suite.agreement
    if agreement is None:
        raise CliError(f"suite {suite.name} has no agreement of two judges")
    _, request, asked = suite_scope(args, suite)
    intervals = {"resamples": asked.resamples, "seed": asked.seed} if agreement.bootstraps else {}
    measured = agreement.measure(home, args.a, args.b, request, **intervals)
    print(measured.model_dump_json(indent=2) if args.format == "json" else agreement.text(measured))
    return 0


def register(cli: Cli) -> None:
    from orchestration.cli.report import add_scope_options

    # `lhl judge` judges pairs; `lhl judge primary|validate|agree` are its subcommands.
    jd = cli.add("judge", cmd_judge, "judge one (truth, extracted) pair, or many from --pairs FILE.jsonl; "
                 "subcommands: primary NAME, validate, agree A B")
    jd.add_argument("--clause-type")
    jd.add_argument("--truth")
    jd.add_argument("--extracted")
    jd.add_argument("--pairs", help="JSONL: clause_type, truth, extracted, optional id; one JSON line out per pair")
    jd.add_argument("--judge", default="rubric", help="registered judge model (default: the offline rubric judge)")
    subs = jd.add_subparsers(dest="judge_command", required=False, metavar="COMMAND")
    primary = cli.add_to(subs, "primary", cmd_judge_primary, "make a registered judge the one reports use by default")
    primary.add_argument("name")
    primary.add_argument("--force", action="store_true",
                         help="make it primary even though it failed its last validation (reports mark its figures)")
    validate = cli.add_to(subs, "validate", cmd_judge_validate,
                          "run a judge on the dissociation suite built from the active corpus (exit 2 if it fails)")
    validate.add_argument("--judge", help="registered judge (default: the primary judge)")
    validate.add_argument("--format", choices=["table", "json"], default="table")
    validate.add_argument("--seed", type=int, default=0)
    validate.add_argument("--per-kind", type=int, default=20, help="items per kind of edit (default 20)")
    validate.add_argument("--suite", choices=["lexflip", "insufficiency"],
                          help="the validation set: lexflip for a clause judge (default), insufficiency for an "
                               "InsufficiencyBench judge (the default for the cue judge)")
    validate.add_argument("--samples", type=int, help="LexFlip: graded scores averaged per pair (default: 5 for an "
                                                       "LLM judge, as the seed does; 1 for an offline algorithm)")
    agree = cli.add_to(subs, "agree", cmd_judge_agree, "agreement of two judges on the true positives both labelled")
    agree.add_argument("a")
    agree.add_argument("b")
    agree.add_argument("--format", choices=["table", "json"], default="table")
    agree.add_argument("--resamples", type=int, default=2000)
    agree.add_argument("--seed", type=int, default=0)
    add_scope_options(agree)
