"""LexFlip's stage: every registered judge validated on the dissociation suite of the active corpus (named by
`lexflip/suite.py`, imported when the stage runs)."""

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
            rows.append(f"| {name} | - | - | - | - | not validated: {exc} | - | - |")
            continue
        results[name] = result
        share = {f.family.value: f.as_expected for f in result.families}
        held = {f.family.value: f.as_expected for f in result.held_out.families} if result.held_out else {}
        tag = " (in-sample)" if result.in_sample else ""
        rows.append(f"| {name} | {result.items} | {share['identical']:.3f} | {share['force_changed']:.3f} | "
                    f"{share['force_kept']:.3f} | {'yes' if result.passed else 'NO'}{tag} | "
                    f"{_num(held.get('force_changed'))} | {_num(held.get('force_kept'))} |")
    table = ("| judge | items | identical | force changed | force kept | fit | held out: force changed | held out: "
             "force kept |\n|---|---|---|---|---|---|---|---|\n" + "\n".join(rows))
    primary = primary_judge(ctx.home)
    passed = primary in results and results[primary].passed
    check = CheckOutcome(
        name="primary_judge_validated", passed=passed, description="the primary judge passes the suite",
        summary=(f"primary judge {primary} could not be validated: {unavailable[primary]}" if primary in unavailable
                 else f"primary judge {primary} {'passes' if passed else 'does not pass'} the dissociation suite"),
        metadata={"judge": primary})
    metadata: dict[str, object] = {"judges": len(results), "validation": Markdown(table)}
    if unavailable:
        metadata["not_validated"] = ", ".join(sorted(unavailable))
    return StageResult(metadata=metadata, checks=[check], failures=sorted(unavailable.items()))
