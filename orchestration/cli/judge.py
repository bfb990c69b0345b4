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
    from lhl_platform.suites.contract import PlannedCall


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
    """The judge's latest validation (any corpus), or None when it was never validated."""
    from lhl_platform.lexflip.events import JudgeValidated, ValidationEvent
    from lhl_platform.lexflip.validate import validation_stream

    stream = validation_stream(judge)
    if stream not in home.events.streams():
        return None
    results = [e.data_as(JudgeValidated) for e in home.events.read(stream) if e.type == ValidationEvent.VALIDATED]
    return results[-1] if results else None


def held_out_status(home: Home, judge: str) -> tuple[bool | None, str]:
    """Whether the judge's latest validation passes the held-out gate (None: no result on every held-out set
    shipped now), and, when it does not, why in a few words."""
    from lhl_platform.clause.checks import heldout_phrase
    from lhl_platform.lexflip.heldout import shipped_sets

    last = last_validation(home, judge)
    if last is None:
        return None, "it has not been validated"
    status = last.status(shipped_sets())
    if status is None:
        return None, "its last validation has no result on every held-out set shipped now (validate it again)"
    failing = [heldout_phrase(h.set, f.family, f.accuracy_decided, f.decided, f.decided_share, f.right_mismatch)
               for h in last.held_out_sets for f in h.families if not f.passed]
    return status, "" if status else f"it failed held-out validation ({'; '.join(failing)})"


def cmd_judge_primary(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.registry import get_judge, set_primary_judge

    get_judge(home, args.name)  # an unknown judge is an error naming the judges there are
    status, why = held_out_status(home, args.name)
    if status is False and not args.force:  # every default report would rest on such verdicts
        raise CliError(f"judge {args.name} is not made primary: {why}; choose a judge that passes, validate it "
                       f"again (`lhl judge validate --judge {args.name}`), or give --force")
    set_primary_judge(home, args.name)
    print(f"primary judge: {args.name} (reports use its verdicts unless --judge says otherwise)")
    if status is None:
        print(f"note: {args.name}: {why}; `lhl judge validate --judge {args.name}` checks it reads legal force on "
              "held-out evidence (reports flag an unvalidated judge)")
    elif status is False:
        print(f"warning: {args.name} made primary because of --force, though {why}: its verdicts are not shown to "
              "read legal force and reports mark its figures", file=sys.stderr)
    return 0


def cmd_judge_validate(args: argparse.Namespace, home: Home) -> int:
    """A judge on its validation sets, in-sample and held-out results apart: a clause judge on the LexFlip suite
    of the active corpus and every held-out set of CUAD rewrites; an InsufficiencyBench judge (`--suite
    insufficiency`, the default for the cue judge) on the hand-labelled set and its held-out paraphrases. The gate
    is held out: exit 2, with one line on stderr, unless the judge passes every held-out set; the in-sample results
    are reported and never validate."""
    from lhl_platform.insufficiency.models import CUE_JUDGE
    from lhl_platform.registry import get_judge, primary_judge

    judge = args.judge or primary_judge(home)
    validation_set = args.suite or ("insufficiency" if judge == CUE_JUDGE else None)
    if validation_set is None:
        spec = get_judge(home, judge)  # an unknown judge is an error naming the judges there are
        validation_set = "insufficiency" if spec.provider == "offline" and spec.model_id == CUE_JUDGE else "lexflip"
    from lhl_platform.judging.heldout import HeldOutError
    from orchestration.cli.spending import limited, max_cost, refuse_unknown_cost

    limit = max_cost(args)
    try:
        if validation_set == "insufficiency":
            if args.samples is not None:
                raise CliError("--samples is LexFlip's (graded scores per pair); InsufficiencyBench asks no scores")
            if args.per_kind is not None or args.seed != 0:
                raise CliError("--seed and --per-kind build LexFlip's generated suite; InsufficiencyBench's "
                               "validation sets are fixed files")
        else:
            get_judge(home, judge)
        if args.dry_run:  # never called (nor spent on) when only an estimate was asked for
            return _print_estimate(args, home, judge, validation_set)
        refuse_unknown_cost(home, [judge], limit is not None)
        codes: list[int] = []
        work = ((lambda: codes.append(_validate_insufficiency(args, home, judge))) if validation_set ==
                "insufficiency" else (lambda: codes.append(_validate_lexflip(args, home, judge))))
        stopped = limited(home, limit, f"lhl judge validate --judge {judge}", work,
                          left=lambda: len(_planned(args, home, judge, validation_set)))
        return stopped if stopped is not None else codes[0]
    except HeldOutError as exc:  # an altered held-out set: refused, in one line
        raise CliError(str(exc)) from None


def _planned(args: argparse.Namespace, home: Home, judge: str, validation_set: str) -> list[PlannedCall]:
    """The calls validating the judge would make now (what is recorded left out)."""
    if validation_set == "insufficiency":
        from lhl_platform.insufficiency.stages import plan_validation_calls, resolve_judge

        return plan_validation_calls(home, resolve_judge(home, judge), stage="judge-validation")
    from lhl_platform.lexflip.validate import plan_validation

    return plan_validation(home, judge, seed=args.seed, samples=args.samples, **_per_kind(args))


def _per_kind(args: argparse.Namespace) -> dict[str, int]:
    return {} if args.per_kind is None else {"per_kind": args.per_kind}


def _print_estimate(args: argparse.Namespace, home: Home, judge: str, validation_set: str) -> int:
    """`lhl judge validate --dry-run`: the calls validating the judge would make, counted and priced; none made."""
    from lhl_platform.suites.estimate import estimate_calls, priced_lines

    rows = estimate_calls(judge, 0, _planned(args, home, judge, validation_set))
    if args.format == "json":
        known = all(r.known_cost for r in rows)
        print(json.dumps({"judge": judge, "suite": validation_set, "dry_run": True,
                          "calls": sum(r.calls for r in rows),
                          "cost_usd": sum(r.cost_usd or 0.0 for r in rows) if known else None,
                          "stages": [r.model_dump(mode="json", exclude={"model", "run", "batched",
                                                                        "batch_cost_usd"}) for r in rows]},
                         indent=2))
        return 0
    title = (f"Dry run of validating judge {judge} on {validation_set}'s validation sets (in-sample and every "
             "held-out set); nothing is called. Input tokens are estimates (about 4 characters per token) of the "
             "prompts rendered from the items; answers already recorded are not counted.")
    print("\n".join(priced_lines(rows, title, batch=False)))
    if not rows:
        print(f"nothing to call: every answer of {judge} on these sets is recorded")
    return 0


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _validate_lexflip(args: argparse.Namespace, home: Home, judge: str) -> int:
    from lhl_platform.lexflip.scoring import FamilyResult
    from lhl_platform.lexflip.validate import validate_judge

    result = validate_judge(home, judge, seed=args.seed, samples=args.samples, **_per_kind(args))
    if args.format == "json":
        # Both sets are self-built: the suite edits the corpus's spans; the held-out sets were written by hand.
        body = {"suite": "lexflip", "self_built": True,
                **result.model_dump(mode="json", exclude={"outcomes", "held_out"}),
                "held_out": [{**held.model_dump(mode="json", exclude={"misjudged"}),
                              "misjudged": [{"item_id": o.item_id, "family": o.family.value, "kind": o.kind,
                                             "verdict": o.verdict, "mismatch_type": o.mismatch_type,
                                             "reason": o.reason} for o in held.misjudged]}
                             for held in result.held_out]}
        print(json.dumps(body, indent=2, ensure_ascii=False))
    else:
        def family_line(f: FamilyResult) -> str:
            mismatch = f"; right mismatch_type {_share(f.right_mismatch)} (needs {f.mismatch_threshold:.2f})" \
                if f.mismatch_threshold is not None else ""
            undecided = f", {f.undetermined} undetermined" if f.undetermined else ""
            undecided += f", {f.unanswered} unanswered" if f.unanswered else ""
            return (f"  {f.family.value:<14} {f.items:>4} items  right on decided {_share(f.accuracy_decided)} (needs "
                    f"{f.threshold:.2f}); decided {_share(f.decided_share)} (needs {f.min_decided:.2f}{undecided})"
                    f"{mismatch}  {'pass' if f.passed else 'FAIL'}")

        sample = "in-sample" if result.in_sample else "not declared in-sample"
        print(f"judge {judge}: {'VALIDATED' if result.passed else 'NOT VALIDATED'} (gate: every held-out set)")
        for held in result.held_out:
            print(f"  held out {held.set} (self-built, sha256 {held.sha256[:16]}; {held.items} items, never used to "
                  f"write or tune a judge) -> {'passes' if held.passed else 'FALLS SHORT'}")
            for f in held.families:
                print(family_line(f))
        print(f"  in-sample suite {result.suite_version}: {result.items} items (self-built, seed {args.seed}; "
              f"{sample}: {', '.join(f.value for f in result.in_sample) or 'no family'}) -> "
              f"{'passes' if result.in_sample_passed else 'falls short'}; reported, never validates")
        for f in result.families:
            print(family_line(f) + (" (in-sample)" if f.in_sample else ""))
        held_kinds = {id(k) for h in result.held_out for k in h.kinds}
        for k in (*(k for h in result.held_out for k in h.kinds), *result.kinds):
            lexflip = (f"  discrimination {k.discrimination:.2f} margin {k.margin:.2f} (of means "
                       f"{_share(k.margin_of_means)})" if k.discrimination is not None and k.margin is not None else "")
            where = "held out" if id(k) in held_kinds else "suite"
            print(f"    {where:<8} {k.family.value:<14} {k.kind:<22} {k.items:>3} items  {_share(k.as_expected)}"
                  f"{lexflip}")
    return _verdict_line(judge, result.passed, bool(result.in_sample_passed),
                         [f"{h.set}: {'; '.join(h.shortfalls())}" for h in result.held_out if not h.passed],
                         "the in-sample LexFlip suite")


def _verdict_line(judge: str, passed: bool, in_sample_passed: bool, held_failed: list[str], in_sample: str) -> int:
    """One stderr line, and exit 2, when the judge fails the held-out gate: it is not validated, whatever it does
    in-sample."""
    if passed:
        return 0
    also = (f"; it passes {in_sample}, which its rules were written from, and that does not validate it"
            if in_sample_passed else "")
    print(f"lhl: judge {judge} is not validated: it falls short on held-out evidence ({' | '.join(held_failed)})"
          f"{also}", file=sys.stderr)
    return 2


def _validate_insufficiency(args: argparse.Namespace, home: Home, judge: str) -> int:
    from lhl_platform.factory import build_model
    from lhl_platform.insufficiency.stages import judge_version, resolve_judge, validate_insufficiency_judge
    from lhl_platform.insufficiency.validation import IN_SAMPLE, families_of

    spec = resolve_judge(home, judge)
    version = judge_version(build_model(spec, home=home))
    gated = validate_insufficiency_judge(home, spec)
    result, held = gated.in_sample, gated.held_out
    families = families_of(result, version)
    in_sample = list(IN_SAMPLE.get(version, ()))
    if args.format == "json":
        body = {"suite": "insufficiency", "self_built": True, "gate": gated.gate, "passed": gated.passed,
                "in_sample_passed": result.passed,
                **result.model_dump(mode="json", exclude={"outcomes", "passed"}),
                "in_sample": in_sample, "families": [f.model_dump(mode="json") for f in families],
                "held_out": {**held.model_dump(mode="json", exclude={"result"}),
                             **held.result.model_dump(mode="json", exclude={"outcomes"}),
                             "not_as_labelled": [{"case_id": o.case_id, "problems": list(o.problems)}
                                                 for o in held.result.outcomes if not o.as_labelled]}}
        print(json.dumps(body, indent=2, ensure_ascii=False))
    else:
        sample = "in-sample" if in_sample else "not declared in-sample"
        print(f"judge {spec.name}: {'VALIDATED' if gated.passed else 'NOT VALIDATED'} (gate: the held-out set)")
        for title, r in ((f"held out: {held.set} (self-built, sha256 {held.sha256[:16]}, never used to write or tune a "
                          "judge)", held.result),
                         (f"{result.suite_version} (self-built; {sample}: {', '.join(in_sample) or 'no family'}; "
                          "reported, never validates)", result)):
            print(f"  {r.cases} cases of {title} -> {'passes' if r.passed else 'falls short'}")
            for c in r.criteria:
                print(f"    {c.name:<26} {c.agreed:>3} of {c.total:<3} {_share(c.rate)} (needs {c.threshold:.2f})  "
                      f"{'pass' if c.passed else 'FAIL'}")
            print(f"    F2 mean abs difference     {_share(r.f2_mean_abs_diff)} (at most {r.f2_max_mean_abs_diff:.2f})")
            for f in families if r is result else ():
                print(f"    family {f.family:<22} {f.as_labelled:>3} of {f.cases:<3} cases as labelled"
                      f"{' (in-sample)' if f.in_sample else ''}")
    held_failed = [f"{c.name} {c.agreed} of {c.total} ({_share(c.rate)})" for c in held.result.criteria if not c.passed]
    return _verdict_line(spec.name, gated.passed, result.passed,
                         [f"{held.set}: {', '.join(held_failed) or 'F2 difference too large'}"],
                         "the shipped InsufficiencyBench validation set")


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
    from orchestration.cli.spending import add_max_cost

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
                          "validate a judge on held-out evidence (exit 2 unless it passes every held-out set); "
                          "its in-sample suite is reported apart")
    validate.add_argument("--judge", help="registered judge (default: the primary judge)")
    validate.add_argument("--format", choices=["table", "json"], default="table")
    validate.add_argument("--seed", type=int, default=0)
    validate.add_argument("--per-kind", type=int, help="LexFlip: items per kind of edit of the generated suite "
                                                        "(default 20, lexflip.items.DEFAULT_PER_KIND)")
    validate.add_argument("--suite", choices=["lexflip", "insufficiency"],
                          help="the validation set: lexflip for a clause judge (default), insufficiency for an "
                               "InsufficiencyBench judge (the default for the cue judge)")
    validate.add_argument("--samples", type=int, help="LexFlip: graded scores averaged per pair (default: 5 for an "
                                                       "LLM judge, as the seed does; 1 for an offline algorithm)")
    validate.add_argument("--dry-run", action="store_true",
                          help="estimate the calls, tokens and cost of the validation (recorded answers left out); "
                               "call nothing")
    add_max_cost(validate, "the validation")
    agree = cli.add_to(subs, "agree", cmd_judge_agree, "agreement of two judges on the true positives both labelled")
    agree.add_argument("a")
    agree.add_argument("b")
    agree.add_argument("--format", choices=["table", "json"], default="table")
    agree.add_argument("--resamples", type=int, default=2000)
    agree.add_argument("--seed", type=int, default=0)
    add_scope_options(agree)
