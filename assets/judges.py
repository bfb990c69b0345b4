"""Which judges are fit to label: each registered judge on the dissociation suite, and how far the primary
judge agrees with the others on the true positives both labelled."""

from collections.abc import Iterator

from dagster import AssetCheckSpec, AssetExecutionContext, AssetKey, MaterializeResult, MetadataValue, asset

from assets.corpus import oracle
from checks.results import to_check_result
from lhl_platform.judges import judge_agreement as agreement_between
from lhl_platform.judges import validate_judge
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.registry import BUILTIN_JUDGE, list_models, primary_judge
from resources import LhlHome


def _judges(lhl: LhlHome) -> list[str]:
    registered = [m.name for m in list_models(lhl.home()) if m.role == "judge"]
    return list(dict.fromkeys([BUILTIN_JUDGE.name, *registered]))


@asset(group_name="judges", deps=[oracle],
       check_specs=[AssetCheckSpec("primary_judge_validated", asset="judge_validation",
                                   description="the primary judge passes the dissociation suite")],
       description="Every registered judge on the dissociation suite of the active corpus: share judged as "
                   "expected per family (identical, force changed, force kept). LLM judges are called once per "
                   "item ever (answers are events).",
       tags={"lhl/spends": "model-calls"})
def judge_validation(context: AssetExecutionContext, lhl: LhlHome) -> Iterator[object]:
    home = lhl.home()
    rows, results = [], {}
    for name in _judges(lhl):
        result = validate_judge(home, name)
        results[name] = result
        share = {f.family.value: f.as_expected for f in result.families}
        rows.append(f"| {name} | {result.items} | {share['identical']:.3f} | {share['force_changed']:.3f} | "
                    f"{share['force_kept']:.3f} | {'yes' if result.passed else 'NO'} |")
    table = ("| judge | items | identical | force changed | force kept | fit |\n|---|---|---|---|---|---|\n"
             + "\n".join(rows))
    yield MaterializeResult(metadata={"judges": len(results), "validation": MetadataValue.md(table)})
    primary = primary_judge(home)
    passed = primary in results and results[primary].passed
    yield to_check_result(CheckOutcome(
        name="primary_judge_validated", passed=passed, description="the primary judge passes the suite",
        summary=f"primary judge {primary} {'passes' if passed else 'does not pass'} the dissociation suite",
        metadata={"judge": primary}), named=True, lhl=lhl, asset="judge_validation")


@asset(group_name="judges", deps=[AssetKey("judge_verdicts")],
       description="Agreement of the primary judge with every other judge that labelled the same true positives: "
                   "Cohen's kappa (binary and directional) and each model's RDI shift with a paired interval.")
def judge_agreement(context: AssetExecutionContext, lhl: LhlHome) -> MaterializeResult:
    home = lhl.home()
    primary = primary_judge(home)
    rows = []
    for other in (j for j in _judges(lhl) if j != primary):
        try:
            result = agreement_between(home, primary, other, resamples=1000)
        except LookupError:
            continue  # these two judges share no labelled true positive
        shifts = ", ".join(f"{m.model} {m.rdi_shift:+.3f}" for m in result.models if m.rdi_shift is not None)
        rows.append(f"| {other} | {result.n} | {_fmt(result.kappa_binary)} | {_fmt(result.kappa_direction)} | "
                    f"{shifts or '-'} |")
    table = (f"| vs {primary} | n | kappa binary | kappa direction | RDI shift |\n|---|---|---|---|---|\n"
             + "\n".join(rows))
    return MaterializeResult(metadata={"pairs": len(rows), "agreement": MetadataValue.md(table)})


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


JUDGE_ASSETS = [judge_validation, judge_agreement]
