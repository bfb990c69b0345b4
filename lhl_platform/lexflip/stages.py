"""LexFlip's stage: every registered judge validated on every held-out set, and reported apart on the in-sample
dissociation suite of the active corpus (named by `lexflip/suite.py`, imported when the stage runs)."""

from __future__ import annotations

from lhl_platform.lexflip.validate import validate_judge
from lhl_platform.providers.llm.credentials import CredentialError
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.registry import judges, primary_judge
from lhl_platform.suites.contract import Markdown, StageContext, StageResult


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def judge_validation(ctx: StageContext) -> StageResult:
    rows, results, unavailable = [], {}, {}
    for name in judges(ctx.home):
        try:
            result = validate_judge(ctx.home, name)
        except CredentialError as exc:  # a judge that cannot be called here is not validated; the others are
            unavailable[name] = str(exc)
            rows.append(f"| {name} | - | - | - | - | - | not validated: {exc} | NO |")
            continue
        results[name] = result
        share = {f.family.value: f.as_expected for f in result.families}
        held = "; ".join(f"{h.set}: {'passes' if h.passed else 'fails'} (" + ", ".join(
            f"{f.family.value} {_num(f.accuracy_decided)} of {f.decided} decided" for f in h.families) + ")"
            for h in result.held_out)
        tag = " (in-sample)" if result.in_sample else ""
        rows.append(f"| {name} | {result.items} | {share['identical']:.3f} | {share['force_changed']:.3f} | "
                    f"{share['force_kept']:.3f} | {'yes' if result.in_sample_passed else 'no'}{tag} | {held} | "
                    f"{'yes' if result.passed else 'NO'} |")
    table = ("| judge | items | identical | force changed | force kept | in-sample passes | held out | validated |\n"
             "|---|---|---|---|---|---|---|---|\n" + "\n".join(rows))
    primary = primary_judge(ctx.home)
    passed = primary in results and results[primary].passed
    check = CheckOutcome(
        name="primary_judge_validated", passed=passed, description="the primary judge passes every held-out set",
        summary=(f"primary judge {primary} could not be validated: {unavailable[primary]}" if primary in unavailable
                 else f"primary judge {primary} {'passes' if passed else 'does not pass'} every held-out set"),
        metadata={"judge": primary})
    metadata: dict[str, object] = {"judges": len(results), "validation": Markdown(table)}
    if unavailable:
        metadata["not_validated"] = ", ".join(sorted(unavailable))
    return StageResult(metadata=metadata, checks=[check], failures=sorted(unavailable.items()))
