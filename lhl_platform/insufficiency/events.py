"""Typed payloads of the suite's events, and `EVENT_PAYLOADS`, the event type -> payload class map the platform
registers with the event log.

What the suite records, and where (the streams are the wiring's choice; the subjects suggested are item ids):

- `insufficiency.items_ingested` once per ingested item set (its provenance: a self-built set says so), then
  one `insufficiency.item` per item (the gold with its reference explanations, so the marts can read it);
- `insufficiency.scope` per (model, run) asked to answer (by the responses stage) or imported: the items it
  is expected to cover (the suite's scope cells; an item without a response is reported missing);
- `insufficiency.response` per answered (model, run, item), or `insufficiency.response_failed` when the call
  was refused, truncated or failed (a recorded failure, never an empty answer);
- `insufficiency.judgment` per judged response (both judge calls' outcome), or
  `insufficiency.judgment_failed` naming the call that failed;
- `insufficiency.response_imported` / `insufficiency.judgment_imported` per imported line, and one
  `insufficiency.import_completed` per imported file;
- `insufficiency.judge_validation_item` per validation case a judge answered, and
  `insufficiency.judge_validated` with the result.

This module imports only Pydantic and the suite's plain record types (never the providers or the log), so
the log's payload registry can import it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field

from lhl_platform.domain.models import Frozen as _Payload  # the payload base, without the event log
from lhl_platform.domain.models import Usage
from lhl_platform.insufficiency.items import Item, Provenance
from lhl_platform.insufficiency.records import ItemJudgment, ModelName, RunNumber


class InsufficiencyEventType(StrEnum):
    ITEMS_INGESTED = "insufficiency.items_ingested"
    ITEM = "insufficiency.item"
    SCOPE = "insufficiency.scope"
    RESPONSE = "insufficiency.response"
    RESPONSE_FAILED = "insufficiency.response_failed"
    RESPONSE_IMPORTED = "insufficiency.response_imported"
    JUDGMENT = "insufficiency.judgment"
    JUDGMENT_FAILED = "insufficiency.judgment_failed"
    JUDGMENT_IMPORTED = "insufficiency.judgment_imported"
    IMPORT_COMPLETED = "insufficiency.import_completed"
    JUDGE_VALIDATION_ITEM = "insufficiency.judge_validation_item"
    JUDGE_VALIDATED = "insufficiency.judge_validated"


class ItemsIngested(_Payload):
    item_set_id: str
    name: str
    provenance: Provenance  # "self-built" is carried into every report
    description: str
    source: str
    sha256: str
    base_items: int = Field(ge=0)
    variants: int = Field(ge=0)
    missing_elements: int = Field(ge=0)
    domains: list[str]
    jurisdictions: list[str]


class ItemRecorded(Item):
    """One item of an ingested set, gold and reference explanations included."""

    item_set_id: str


class ScopeRecorded(_Payload):
    """The items a (model, run) partition is expected to answer: asked by the responses stage, or imported."""

    item_set_id: str
    model: ModelName
    run: RunNumber
    items: list[str]
    source: Literal["stage", "import"]


class ResponseRecorded(_Payload):
    item_set_id: str
    model: ModelName
    run: RunNumber
    item_id: str
    response: str = Field(min_length=1)
    request_key: str
    prompt_version: str
    params: dict[str, Any]
    finish_reason: str
    usage: Usage
    latency_s: float = Field(ge=0)


class ResponseFailed(_Payload):
    """A call that gave no usable answer: refused, truncated (the 32,768-token cap) or failed."""

    item_set_id: str
    model: ModelName
    run: RunNumber
    item_id: str
    request_key: str
    finish_reason: Literal["refusal", "length", "error"]
    reason: str
    usage: Usage = Field(default_factory=Usage)


class ResponseImported(_Payload):
    item_set_id: str
    model: ModelName
    run: RunNumber
    item_id: str
    response: str = Field(min_length=1)
    source_sha256: str
    line: int = Field(ge=1)


class JudgmentRecorded(ItemJudgment):
    """A judgment made here: the two calls' outputs as scored, and what identifies the calls."""

    item_set_id: str
    judge_model_id: str
    judge_version: str  # an offline judge's algorithm version, or an LLM's model id and prompt versions
    identify_request_key: str
    explain_request_key: str | None  # None for a base item (no gold to explain)
    identify_prompt_version: str
    explain_prompt_version: str | None
    dropped_identified: int = Field(ge=0)  # identified names that are not gold sub-tags
    usage: Usage


class JudgmentFailed(_Payload):
    item_set_id: str
    model: ModelName
    run: RunNumber
    judge: ModelName
    item_id: str
    stage: Literal["identify", "explain"]
    request_key: str
    reason: str
    usage: Usage = Field(default_factory=Usage)


class JudgmentImported(ItemJudgment):
    item_set_id: str
    source_sha256: str
    line: int = Field(ge=1)


class ImportCompleted(_Payload):
    kind: Literal["responses", "judgments"]
    item_set_id: str
    source: str
    sha256: str
    records: int = Field(ge=1)


class JudgeValidationCase(_Payload):
    """One validation case as a judge answered it (kept so a rerun never asks the judge again)."""

    judge: ModelName
    suite_digest: str
    case_id: str
    identification: dict[str, Any] | None  # the IdentificationOutput as given; None when the call failed
    explanation: dict[str, Any] | None  # the ExplanationSafetyOutput; None when failed or not needed
    as_labelled: bool
    problems: list[str]
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


class ValidationCriterion(_Payload):
    name: str
    agreed: int = Field(ge=0)
    total: int = Field(ge=0)
    rate: float | None
    threshold: float
    passed: bool


class JudgeValidated(_Payload):
    """A judge's validation: `passed` is the held-out set's result (`gate`); the shipped set's (`suite_*`,
    `criteria`, `in_sample_passed`) is reported beside it and never validates. A result recorded before the gate
    (no `gate`) carries the shipped set's result as `passed` and validates nothing."""

    judge: ModelName
    judge_model_id: str
    judge_version: str
    suite_version: str
    suite_digest: str
    cases: int = Field(ge=0)
    unanswered: int = Field(ge=0)
    passed: bool
    criteria: list[ValidationCriterion]
    required_failed: list[str]
    f2_mean_abs_diff: float | None
    gate: str | None = None  # "held_out": `passed` is the held-out set's result
    in_sample_passed: bool | None = None
    held_out_set: str | None = None
    held_out_digest: str | None = None
    held_out_cases: int | None = None
    held_out_unanswered: int | None = None
    held_out_criteria: list[ValidationCriterion] = Field(default_factory=list)
    held_out_f2_mean_abs_diff: float | None = None


_PAYLOADS: dict[InsufficiencyEventType, type[BaseModel]] = {
    InsufficiencyEventType.ITEMS_INGESTED: ItemsIngested,
    InsufficiencyEventType.ITEM: ItemRecorded,
    InsufficiencyEventType.SCOPE: ScopeRecorded,
    InsufficiencyEventType.RESPONSE: ResponseRecorded,
    InsufficiencyEventType.RESPONSE_FAILED: ResponseFailed,
    InsufficiencyEventType.RESPONSE_IMPORTED: ResponseImported,
    InsufficiencyEventType.JUDGMENT: JudgmentRecorded,
    InsufficiencyEventType.JUDGMENT_FAILED: JudgmentFailed,
    InsufficiencyEventType.JUDGMENT_IMPORTED: JudgmentImported,
    InsufficiencyEventType.IMPORT_COMPLETED: ImportCompleted,
    InsufficiencyEventType.JUDGE_VALIDATION_ITEM: JudgeValidationCase,
    InsufficiencyEventType.JUDGE_VALIDATED: JudgeValidated,
}
EVENT_PAYLOADS: dict[str, type[BaseModel]] = {kind.value: cls for kind, cls in _PAYLOADS.items()}
