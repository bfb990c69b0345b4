"""The suite's three tasks: answering a query, and the two judge calls on each answer.

- `AnswerTask`: the model under test gets the seed's fixed system prompt and the query as the one user
  message, and answers in free text (max output 32,768 tokens, `ANSWER_MAX_OUTPUT_TOKENS`). It is a free-text
  task (`Task.free_text`): the providers send it without a structured-output schema and its reply text becomes
  `AnswerOutput.text` (a refusal, a truncated or empty reply or an error stays a recorded failure, never an
  empty answer).
- `IdentificationTask` and `ExplanationSafetyTask`: the seed's two judge prompts (Appendix A) with their
  output schemas as strict models (extra fields forbidden, every field required, so providers' strict
  structured-output modes accept them). A base item needs no explanation call: its gold is empty, and the
  seed's answer for it is `per_element_judgments: []`.

Every field of a task is rendered into its messages, so the request key (which covers the messages and the
task's subject) changes whenever the task does. `to_judgment` turns the two judge outputs into the
`ItemJudgment` that scoring reads, checking what a schema cannot: one explanation entry per gold element.
"""

from __future__ import annotations

import json
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.insufficiency.items import Item, ItemId, ItemKind, SubTag
from lhl_platform.insufficiency.prompts import (
    ANSWER_PROMPT_VERSION,
    ANSWER_SYSTEM_PROMPT,
    EXPLAIN_PROMPT_VERSION,
    IDENTIFY_PROMPT_VERSION,
    template,
)
from lhl_platform.insufficiency.records import AdditionalClaim, ElementVerdict, ItemJudgment, ItemResponse
from lhl_platform.providers.base import Message, Task


class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


# Answers ------------------------------------------------------------------------------------------

class AnswerOutput(_Output):
    """The model under test's free-text answer."""

    text: str = Field(min_length=1)


class IdentificationOutput(_Output):
    """The seed's element-identification output (Appendix A.1)."""

    reasoning: str
    identified_elements: list[str]
    additional_claims: list[AdditionalClaim]
    claimed_anything_missing: bool


class ExplanationMatch(_Output):
    model_explanation: str
    matches_ground_truth: bool
    reasoning: str


class SafetyJudgment(_Output):
    fabricated: bool
    fabrication_type: Literal["assumed_fact", "invented_rule", "overconfident_conclusion"] | None
    evidence_span: str
    verification_status: Literal["verified", "unverified"]
    reasoning: str


class ElementJudgment(_Output):
    element: str
    explanation_match: ExplanationMatch
    safety: SafetyJudgment


class ExplanationSafetyOutput(_Output):
    """The seed's explanation-and-safety output (Appendix A.2)."""

    reasoning: str
    per_element_judgments: list[ElementJudgment]


# Tasks --------------------------------------------------------------------------------------------

class ReferenceElement(_Frozen):
    """A gold element as the explanation judge sees it: its name and its reference explanation."""

    sub_tag: SubTag
    explanation: str = Field(min_length=1)


class AnswerTask(Task):
    """Answer one query. The model never sees the item's missing elements or reference explanations."""

    kind: Literal["insufficiency.answer"] = "insufficiency.answer"
    output: ClassVar[type[BaseModel]] = AnswerOutput
    free_text: ClassVar[bool] = True
    item_id: ItemId
    query: str = Field(min_length=1)

    def subject(self) -> str:
        return self.item_id


class _JudgeTask(Task):
    """What both judge calls read: the query, the response judged and whose response it is."""

    item_id: ItemId
    model: str = Field(min_length=1)  # the model under test whose response is judged
    run: int = Field(ge=1)
    query: str = Field(min_length=1)
    response: str = Field(min_length=1)

    def subject(self) -> str:
        return f"{self.item_id}@{self.model}/run={self.run}"


class IdentificationTask(_JudgeTask):
    kind: Literal["insufficiency.identify"] = "insufficiency.identify"
    output: ClassVar[type[BaseModel]] = IdentificationOutput
    missing_elements: tuple[SubTag, ...]  # canonical names only, as the seed's prompt shows them


class ExplanationSafetyTask(_JudgeTask):
    kind: Literal["insufficiency.explain_safety"] = "insufficiency.explain_safety"
    output: ClassVar[type[BaseModel]] = ExplanationSafetyOutput
    elements: tuple[ReferenceElement, ...] = Field(min_length=1)


def answer_task(item: Item) -> AnswerTask:
    return AnswerTask(item_id=item.item_id, query=item.query)


def judge_tasks(item: Item, response: ItemResponse) -> tuple[IdentificationTask, ExplanationSafetyTask | None]:
    """The judge calls for one response; a base item has no gold elements to explain, so no second call. The judge
    is shown the gold only (the required elements, the seed's M_v), never a non-required element."""
    if response.item_id != item.item_id:
        raise ValueError(f"response is for {response.item_id!r}, not {item.item_id!r}")
    common = {"item_id": item.item_id, "model": response.model, "run": response.run, "query": item.query,
              "response": response.response}
    identify = IdentificationTask(missing_elements=item.gold, **common)
    if item.kind is ItemKind.BASE:
        return identify, None
    references = tuple(ReferenceElement(sub_tag=e.sub_tag, explanation=e.explanation) for e in item.gold_elements)
    return identify, ExplanationSafetyTask(elements=references, **common)


# Messages -----------------------------------------------------------------------------------------

def answer_messages(task: AnswerTask) -> tuple[Message, ...]:
    return (Message(role="system", content=ANSWER_SYSTEM_PROMPT), Message(role="user", content=task.query))


def _names(tags: tuple[str, ...]) -> str:
    return json.dumps(list(tags), ensure_ascii=False)


def identification_messages(task: IdentificationTask) -> tuple[Message, ...]:
    prompt = template(IDENTIFY_PROMPT_VERSION).format(query=task.query, missing_elements=_names(task.missing_elements),
                                      model_output=task.response)
    return (Message(role="user", content=prompt),)


def explanation_messages(task: ExplanationSafetyTask) -> tuple[Message, ...]:
    names = _names(tuple(e.sub_tag for e in task.elements))
    importance = "\n".join(f"- {e.sub_tag}: {e.explanation}" for e in task.elements)
    prompt = template(EXPLAIN_PROMPT_VERSION).format(query=task.query, missing_elements=names,
                                                     element_importance=importance, model_output=task.response)
    return (Message(role="user", content=prompt),)


def messages_for(task: Task) -> tuple[Message, ...]:
    """The messages any of the suite's tasks is sent as."""
    if isinstance(task, AnswerTask):
        return answer_messages(task)
    if isinstance(task, IdentificationTask):
        return identification_messages(task)
    if isinstance(task, ExplanationSafetyTask):
        return explanation_messages(task)
    raise TypeError(f"not an InsufficiencyBench task: {type(task).__name__}")


def prompt_version(task: Task) -> str:
    versions = {AnswerTask: ANSWER_PROMPT_VERSION, IdentificationTask: IDENTIFY_PROMPT_VERSION,
                ExplanationSafetyTask: EXPLAIN_PROMPT_VERSION}
    version = versions.get(type(task))
    if version is None:
        raise TypeError(f"not an InsufficiencyBench task: {type(task).__name__}")
    return version


# From judge outputs to a judgment -----------------------------------------------------------------

class JudgeOutputError(ValueError):
    """A judge output that validated against its schema but does not fit its task (a recorded failure)."""


def element_verdicts(task: ExplanationSafetyTask, output: ExplanationSafetyOutput) -> tuple[ElementVerdict, ...]:
    """One verdict per gold element, in gold order. An entry for an element not in the gold is ignored (the
    seed asks for one entry per gold element); a gold element judged twice or not at all is an error."""
    by_element: dict[str, ElementJudgment] = {}
    for judgment in output.per_element_judgments:
        if judgment.element in by_element:
            raise JudgeOutputError(f"element {judgment.element!r} is judged twice")
        by_element[judgment.element] = judgment
    absent = [e.sub_tag for e in task.elements if e.sub_tag not in by_element]
    if absent:
        raise JudgeOutputError(f"no judgment for gold element(s) {', '.join(absent)}")
    return tuple(ElementVerdict(sub_tag=e.sub_tag,
                                explanation_matches=by_element[e.sub_tag].explanation_match.matches_ground_truth,
                                fabricated=by_element[e.sub_tag].safety.fabricated) for e in task.elements)


def to_judgment(judge: str, identify: IdentificationTask, identification: IdentificationOutput,
                explain: ExplanationSafetyTask | None, explanation: ExplanationSafetyOutput | None) -> ItemJudgment:
    """The judgment scoring reads. Identified names are kept as the judge gave them (scoring drops and counts
    the ones not in the gold), so the record shows what the judge said."""
    if (explain is None) != (explanation is None) or (explain is None) != (not identify.missing_elements):
        raise JudgeOutputError("a variant needs both judge outputs, a base item only the identification")
    elements = element_verdicts(explain, explanation) if explain is not None and explanation is not None else ()
    return ItemJudgment(model=identify.model, run=identify.run, judge=judge, item_id=identify.item_id,
                        identified_elements=tuple(dict.fromkeys(identification.identified_elements)),
                        additional_claims=tuple(identification.additional_claims),
                        claimed_anything_missing=identification.claimed_anything_missing, elements=elements)
