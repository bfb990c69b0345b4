"""Judge validation for InsufficiencyBench: a hand-labelled set of responses with the judgments they should get.

`data/judge_validation.jsonl` holds responses to queries (most of them self-built items, named by item id;
a few with their own query and references) and the identification, explanation and safety judgments the
seed's rules give them. It includes the seed's worked examples: the Figure 1 premature-closure and
sufficiency-aware responses to variant 1a, the Appendix E over-hedging on the base query, and the examples
of both judge prompts. The labels were written by the platform's engineers from the seed's decision rules,
not by attorneys, and the same engineers wrote the offline cue judge, so passing this set is a sanity check
of a judge, not independent evidence of its accuracy. For the record: the first 37 cases were written
alongside the judge; the 14 of batch 2 were written before the judge saw them, and on its first run it
matched 17 of 18 identifications, explanations and fabrications but only 9 of 14 additional-claim counts
(over-flag 9 of 14, a fail); it was then revised (sentence ends after abbreviations and bold, follow-on
questions, asks spelled out after a dash, five cues), so batch 2 is no longer held out either.

In-sample and held out. The set records the families it holds (`case_family`: the seed's worked examples, batch 1,
batch 2) and which of them each judge's rules were written from (`IN_SAMPLE`, by judge version: all three for the
cue judge), so its result on them is named in-sample wherever it is reported. The held-out family is
`data/judge_validation_heldout_v1.jsonl`: 26 responses written by hand from the seed's matching rules (Appendix A.1)
and the items, not from the cue lexicon: each names, asks about or conditions on the missing elements in other
words ("roughly how big is the company" for employer_size), or is a throwaway hedge, an adjacent-but-different ask,
an over-flag or a presumption in other words. It was fixed and hashed (`lhl_platform.judging.heldout`) before any
judge was run on it, its hash is checked on every load, and no judge is tuned to it: it is held out for every
judge and scored apart (`heldout_cases`; `stages.validate_insufficiency_judge` asks both), with the same thresholds,
and it alone validates a judge (`GatedValidation`: the held-out gate). Self-built, like the rest.

Any judge is scored the same way: its two outputs per case (`validation_tasks` gives the tasks to send;
`score_validation` scores what came back, an unanswered case counting as wrong on everything) are compared
with the labels, and the judge passes when every criterion reaches its threshold (`THRESHOLDS`) and every
case marked `required` (the three worked examples the issue names) is judged exactly as labelled. A judge
that has not been validated, or that failed, is flagged wherever its judgments are reported.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from importlib import resources

from pydantic import BaseModel, Field, ValidationError

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.insufficiency import offline_judge
from lhl_platform.insufficiency.items import SubTag
from lhl_platform.insufficiency.scoring import f2_score
from lhl_platform.insufficiency.selfbuilt import self_built_items
from lhl_platform.insufficiency.task import (
    ExplanationSafetyOutput,
    ExplanationSafetyTask,
    IdentificationOutput,
    IdentificationTask,
    JudgeOutputError,
    ReferenceElement,
    element_verdicts,
)
from lhl_platform.jsonl import describe, parse_lines
from lhl_platform.judging.heldout import HeldOutHeader, read_hashed
from lhl_platform.providers.base import Task

VALIDATION_VERSION = "insufficiency-judge-validation-v1"
VALIDATION_FILE = "judge_validation.jsonl"
# The share of labels a judge must reproduce. Identification drives F2, so it is held tightest.
THRESHOLDS: dict[str, float] = {
    "identification": 0.90,  # per gold element: identified or not, as labelled
    "claimed_anything_missing": 0.90,  # per case
    "over_flag": 0.90,  # per case: additional claims > 0, as labelled
    "additional_claims_count": 0.80,  # per case: exactly the labelled number of additional claims
    "explanation": 0.85,  # per gold element
    "fabrication": 0.85,  # per gold element
}
MAX_F2_MEAN_ABS_DIFF = 0.10  # per variant case, the F2 the judge's identification gives against the labelled F2

VALIDATION_MODEL = "validation"  # the model name the validation tasks carry (they judge no registered model)

HELDOUT_FILE = "judge_validation_heldout_v1.jsonl"
FAMILIES = ("seed-worked-examples", "self-built-batch-1", "self-built-batch-2")  # the set's families, in file order
# The families of the set each judge's rules were written from, by the judge's version (an LLM judge declares none).
IN_SAMPLE: dict[str, tuple[str, ...]] = {offline_judge.VERSION: FAMILIES}


class ExpectedElement(_Frozen):
    sub_tag: SubTag
    explanation_matches: bool
    fabricated: bool


class Expected(_Frozen):
    identified_elements: tuple[SubTag, ...]
    additional_claims: int = Field(ge=0)
    claimed_anything_missing: bool
    elements: tuple[ExpectedElement, ...] = ()


class CaseSpec(_Frozen):
    """A line of the validation file: an item id, or a query with its own gold and references."""

    case_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9-]*$")
    source: str
    required: bool = False
    note: str = ""
    item_id: str | None = None
    query: str | None = None
    missing_elements: tuple[ReferenceElement, ...] | None = None
    response: str = Field(min_length=1)
    expected: Expected


class ValidationCase(_Frozen):
    case_id: str
    source: str
    required: bool
    note: str
    query: str
    elements: tuple[ReferenceElement, ...]  # the gold, with reference explanations; empty for a base query
    response: str
    expected: Expected

    @property
    def gold(self) -> tuple[str, ...]:
        return tuple(e.sub_tag for e in self.elements)


class ValidationFileError(ValueError):
    pass


def _resolve(spec: CaseSpec, where: str) -> ValidationCase:
    if spec.item_id is not None:
        if spec.query is not None or spec.missing_elements is not None:
            raise ValidationFileError(f"{where}: give an item_id or a query with missing_elements, not both")
        item = self_built_items().by_id().get(spec.item_id)
        if item is None:
            raise ValidationFileError(f"{where}: {spec.item_id!r} is not a self-built item")
        query = item.query
        elements = tuple(ReferenceElement(sub_tag=e.sub_tag, explanation=e.explanation) for e in item.missing_elements)
    elif spec.query is not None and spec.missing_elements is not None:
        query, elements = spec.query, spec.missing_elements
    else:
        raise ValidationFileError(f"{where}: needs an item_id, or a query with missing_elements")
    gold = [e.sub_tag for e in elements]
    expected = spec.expected
    if [e.sub_tag for e in expected.elements] != gold or not set(expected.identified_elements) <= set(gold):
        raise ValidationFileError(f"{where}: expected elements must follow the gold {gold} and identify only gold")
    return ValidationCase(case_id=spec.case_id, source=spec.source, required=spec.required, note=spec.note,
                          query=query, elements=elements, response=spec.response, expected=expected)


def _file_text() -> str:
    return resources.files("lhl_platform.insufficiency").joinpath("data", VALIDATION_FILE).read_text(encoding="utf-8")


@functools.cache
def validation_cases() -> tuple[ValidationCase, ...]:
    cases = []
    for number, row in parse_lines(_file_text(), VALIDATION_FILE):
        where = f"{VALIDATION_FILE}: line {number}"
        try:
            spec = CaseSpec.model_validate(row)
        except ValidationError as exc:
            raise ValidationFileError(f"{where}: {describe(exc, CaseSpec)}") from None
        cases.append(_resolve(spec, where))
    ids = [c.case_id for c in cases]
    if len(set(ids)) != len(ids):
        raise ValidationFileError(f"{VALIDATION_FILE}: a case_id is used twice")
    return tuple(cases)


def validation_digest(cases: Sequence[ValidationCase]) -> str:
    return hashlib.sha256("\n".join(c.model_dump_json() for c in cases).encode()).hexdigest()[:16]


def case_family(case: ValidationCase) -> str:
    """The family of a case of the shipped set: the seed's worked examples, batch 1 or batch 2 (by its source)."""
    if case.source.startswith("seed"):
        return FAMILIES[0]
    return FAMILIES[2] if "batch 2" in case.source else FAMILIES[1]


class HeldOutCases(_Frozen):
    header: HeldOutHeader
    cases: tuple[ValidationCase, ...]

    @property
    def digest(self) -> str:
        return self.header.sha256[:16]


def parse_heldout(text: str, name: str = HELDOUT_FILE) -> HeldOutCases:
    """A held-out validation file: its header's hash checked, then every line read as in the shipped set."""
    header, body = read_hashed(text, name)
    cases = []
    for number, row in parse_lines(body, name):
        where = f"{name}: line {number + 1}"
        try:
            spec = CaseSpec.model_validate(row)
        except ValidationError as exc:
            raise ValidationFileError(f"{where}: {describe(exc, CaseSpec)}") from None
        cases.append(_resolve(spec, where))
    if len({c.case_id for c in cases}) != len(cases):
        raise ValidationFileError(f"{name}: a case_id is used twice")
    return HeldOutCases(header=header, cases=tuple(cases))


@functools.cache
def heldout_cases() -> HeldOutCases:
    """The shipped held-out set, its hash checked (an altered file is refused: `HeldOutError`)."""
    text = resources.files("lhl_platform.insufficiency").joinpath("data", HELDOUT_FILE).read_text(encoding="utf-8")
    return parse_heldout(text)


def validation_tasks(cases: Sequence[ValidationCase]) -> list[tuple[IdentificationTask, ExplanationSafetyTask | None]]:
    """The judge calls a validation run makes, one pair per case (no explanation call for a base query)."""
    out: list[tuple[IdentificationTask, ExplanationSafetyTask | None]] = []
    for case in cases:
        common = {"item_id": case.case_id, "model": VALIDATION_MODEL, "run": 1, "query": case.query,
                  "response": case.response}
        explain = ExplanationSafetyTask(elements=case.elements, **common) if case.elements else None
        out.append((IdentificationTask(missing_elements=case.gold, **common), explain))
    return out


# Scoring ------------------------------------------------------------------------------------------

class Criterion(_Frozen):
    name: str
    agreed: int
    total: int
    rate: float | None
    threshold: float
    passed: bool


class CaseOutcome(_Frozen):
    case_id: str
    source: str
    required: bool
    answered: bool
    as_labelled: bool  # every judgment of the case matches its label
    problems: tuple[str, ...]  # what differs from the labels, one phrase each
    f2_expected: float | None
    f2_judged: float | None


class JudgeValidation(_Frozen):
    suite_version: str
    suite_digest: str
    judge: str
    cases: int
    unanswered: int
    passed: bool
    criteria: tuple[Criterion, ...]
    required_failed: tuple[str, ...]  # required cases not judged as labelled
    f2_mean_abs_diff: float | None
    f2_max_mean_abs_diff: float
    outcomes: tuple[CaseOutcome, ...]


def _f2(gold: tuple[str, ...], identified: set[str], claims: int) -> float | None:
    if not gold:
        return None
    tp = len(identified & set(gold))
    return 0.0 if tp == 0 else f2_score(tp / (tp + claims), tp / len(gold))


Outputs = tuple[IdentificationOutput | None, ExplanationSafetyOutput | None]


def score_validation(cases: Sequence[ValidationCase], outputs: Sequence[Outputs], *, judge: str,
                     suite_version: str = VALIDATION_VERSION) -> JudgeValidation:
    """Score a judge's outputs (one pair per case, in case order; None where a call failed)."""
    if len(outputs) != len(cases):
        raise ValueError(f"expected one output pair per case: {len(cases)} cases, {len(outputs)} outputs")
    tallies = {name: [0, 0] for name in THRESHOLDS}
    outcomes, diffs = [], []

    def tally(name: str, agreed: bool) -> None:
        tallies[name][0] += agreed
        tallies[name][1] += 1

    tasks = validation_tasks(cases)
    for case, (identification, explanation), (_, explain_task) in zip(cases, outputs, tasks, strict=True):
        expected, problems = case.expected, []
        answered = identification is not None and (explanation is not None or not case.elements)
        named = set(identification.identified_elements) if identification else set()
        claims = len(identification.additional_claims) if identification else -1
        for tag in case.gold:
            ok = identification is not None and (tag in named) == (tag in expected.identified_elements)
            tally("identification", ok)
            if not ok:
                problems.append(f"{tag} {'not ' if tag in expected.identified_elements else ''}identified")
        claimed_ok = identification is not None and (
            identification.claimed_anything_missing == expected.claimed_anything_missing)
        tally("claimed_anything_missing", claimed_ok)
        tally("over_flag", identification is not None and (claims > 0) == (expected.additional_claims > 0))
        tally("additional_claims_count", claims == expected.additional_claims)
        if not claimed_ok:
            problems.append("claimed_anything_missing differs")
        if claims != expected.additional_claims:
            problems.append(f"{claims} additional claims, labelled {expected.additional_claims}")
        verdicts = {}
        if explanation is not None and explain_task is not None:
            try:
                verdicts = {v.sub_tag: v for v in element_verdicts(explain_task, explanation)}
            except JudgeOutputError as exc:
                problems.append(str(exc))
        for label in expected.elements:
            verdict = verdicts.get(label.sub_tag)
            for name, got, want in (("explanation", verdict and verdict.explanation_matches, label.explanation_matches),
                                    ("fabrication", verdict and verdict.fabricated, label.fabricated)):
                ok = verdict is not None and got == want
                tally(name, ok)
                if not ok:
                    problems.append(f"{label.sub_tag} {name} {'missing' if verdict is None else got}")
        f2_expected = _f2(case.gold, set(expected.identified_elements), expected.additional_claims)
        f2_judged = _f2(case.gold, named, max(claims, 0)) if identification else None
        if f2_expected is not None:
            diffs.append(abs(f2_expected - (f2_judged or 0.0)))
        outcomes.append(CaseOutcome(case_id=case.case_id, source=case.source, required=case.required,
                                    answered=answered, as_labelled=answered and not problems,
                                    problems=tuple(problems), f2_expected=f2_expected, f2_judged=f2_judged))
    criteria = tuple(Criterion(name=name, agreed=agreed, total=total, rate=agreed / total if total else None,
                               threshold=THRESHOLDS[name], passed=total > 0 and agreed / total >= THRESHOLDS[name])
                     for name, (agreed, total) in tallies.items())
    required_failed = tuple(o.case_id for o in outcomes if o.required and not o.as_labelled)
    mad = sum(diffs) / len(diffs) if diffs else None
    passed = (all(c.passed for c in criteria) and not required_failed and mad is not None
              and mad <= MAX_F2_MEAN_ABS_DIFF)
    return JudgeValidation(suite_version=suite_version, suite_digest=validation_digest(cases), judge=judge,
                           cases=len(cases), unanswered=sum(not o.answered for o in outcomes), passed=passed,
                           criteria=criteria, required_failed=required_failed, f2_mean_abs_diff=mad,
                           f2_max_mean_abs_diff=MAX_F2_MEAN_ABS_DIFF, outcomes=tuple(outcomes))


JudgeAnswer = Callable[[Task], BaseModel]


def validate_judge(answer: JudgeAnswer, *, judge: str, cases: Sequence[ValidationCase] | None = None,
                   suite_version: str = VALIDATION_VERSION) -> JudgeValidation:
    """Run a judge given as an offline model's `answer(task)` over the validation set and score it. A call that
    raises, or answers with the wrong schema, leaves its case unanswered (scored as wrong), not the run failed."""
    chosen = tuple(cases if cases is not None else validation_cases())

    def ask(task: Task | None, schema: type[BaseModel]) -> BaseModel | None:
        if task is None:
            return None
        try:
            return schema.model_validate(answer(task).model_dump())
        except Exception:  # noqa: BLE001 - an unanswered case is scored as a failure, not a crash
            return None

    outputs: list[Outputs] = []
    for identify_task, explain_task in validation_tasks(chosen):
        identification = ask(identify_task, IdentificationOutput)
        explanation = ask(explain_task, ExplanationSafetyOutput)
        assert identification is None or isinstance(identification, IdentificationOutput)
        assert explanation is None or isinstance(explanation, ExplanationSafetyOutput)
        outputs.append((identification, explanation))
    return score_validation(chosen, outputs, judge=judge, suite_version=suite_version)


# In-sample and held out, as `lhl judge validate` reports them ------------------------------------------------

class FamilyCount(_Frozen):
    family: str
    cases: int
    as_labelled: int
    in_sample: bool  # the judge's rules were written from this family


class HeldOutValidation(_Frozen):
    """A judge on the held-out set, reported apart from the in-sample result (the same criteria and thresholds)."""

    set: str
    sha256: str
    self_built: bool
    source: str
    written_from: str
    in_sample: bool = False  # held out for every judge
    result: JudgeValidation


GATE = "held_out"  # what validates a judge: the held-out set, never the shipped set its rules were written from


class GatedValidation(_Frozen):
    """A judge's InsufficiencyBench validation under the held-out gate: validated (`passed`) only by the held-out
    set; the shipped set's result (`in_sample`) is reported beside it and never validates."""

    gate: str = GATE
    in_sample: JudgeValidation
    held_out: HeldOutValidation

    @property
    def passed(self) -> bool:
        return self.held_out.result.passed


def families_of(result: JudgeValidation, judge_version: str) -> list[FamilyCount]:
    """The shipped set's families in a result on it, each named in-sample or not for the judge's version."""
    family = {c.case_id: case_family(c) for c in validation_cases()}
    written_from = IN_SAMPLE.get(judge_version, ())
    return [FamilyCount(family=f, cases=sum(family.get(o.case_id) == f for o in result.outcomes),
                        as_labelled=sum(family.get(o.case_id) == f and o.as_labelled for o in result.outcomes),
                        in_sample=f in written_from) for f in FAMILIES]


def held_out(result: JudgeValidation, held: HeldOutCases) -> HeldOutValidation:
    h = held.header
    return HeldOutValidation(set=h.set, sha256=h.sha256, self_built=h.self_built, source=h.source,
                             written_from=h.written_from, result=result)
