"""LexFlip as the platform runs it: every registered judge on the dissociation suite of the active corpus.
Registered in `lhl_platform.catalog`."""

from __future__ import annotations

from lhl_platform.home import Home
from lhl_platform.lexflip.events import JudgeValidated, ValidationEvent
from lhl_platform.lexflip.validate import validate_judge, validation_stream
from lhl_platform.providers.llm.credentials import CredentialError
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.registry import judges, primary_judge
from lhl_platform.suites.contract import CheckSpec, ItemSet, Job, Markdown, Stage, StageContext, StageResult, Suite
from sql import SQL_DIR

JUDGES_JOB = "judges"


def _item_sets(home: Home) -> list[ItemSet]:
    """The dissociation suites judges were validated on: derived from a corpus's own annotated spans."""
    seen: dict[str, ItemSet] = {}
    streams = [s for s in home.events.streams() if s.startswith(validation_stream(""))]
    for event in (e for stream in streams for e in home.events.read(stream)):
        if event.type != ValidationEvent.VALIDATED:
            continue
        v = event.data_as(JudgeValidated)
        seen[v.suite_digest] = ItemSet(id=v.suite_digest, name=f"lexflip {v.suite_version}", items=v.items,
                                       source=f"edits of corpus {v.corpus_id}'s annotated spans, seed {v.seed}",
                                       self_built=True)
    return list(seen.values())


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


SUITE = Suite(
    name="lexflip",
    title="Judge validation (LexFlip)",
    description="Is a judge or metric reading legal force? Every judge on edits of the corpus's own annotated "
                "spans: identical, force-changing, force-keeping and unrelated pairs.",
    stages=(
        Stage("judge_validation", "Every registered judge on the dissociation suite of the active corpus: share "
              "judged as expected per family (identical, force changed, force kept), named in-sample where the "
              "judge's rules were written from it, and apart on the held-out CUAD rewrites (self-built). LLM judges "
              "are called once per item ever (answers are events).", judge_validation, kind="score",
              partitioning="none",
              after=("oracle",), checks=(CheckSpec("primary_judge_validated",
                                                    "the primary judge passes the dissociation suite"),),
              spends=True, group="judges", feeds=("judge.validation_item", "judge.validation_score",
                                                  "judge.validated")),
    ),
    jobs=(Job(JUDGES_JOB, ("judge_validation", "judge_agreement"), "Validate every registered judge on the "
              "dissociation suite; measure agreement with the primary judge.", partitioning="none"),),
    sql=SQL_DIR / "lexflip",
    item_sets=_item_sets,
)
