"""Every event type, named once, with the one Pydantic class its payload must validate against.

Writers hand the log a payload object; the log checks that its class is the one registered for the event
type and stores its canonical JSON. Readers get typed payloads back with `payload_of`. The SQL staging
models are the only SQL that reads raw events, one per event type (a test keeps the two in step).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.debate.events import (
    DebateCalibration,
    DebateFailed,
    DebateGate,
    DebateOutcome,
    DebateScope,
    DebateTurn,
    DebateVerdict,
    DebateVerdictFailed,
    RouteDecision,
)
from lhl_platform.domain.models import (
    Extraction,
    InstanceOutcome,
    MismatchType,
    ModelSpec,
    Subset,
    Usage,
    VerdictLabel,
)


class EventType(StrEnum):
    CORPUS_INGESTED = "corpus.ingested"
    SUBSET_CREATED = "subset.created"
    MODEL_REGISTERED = "model.registered"
    MODEL_REMOVED = "model.removed"
    AUDIT_SCOPE = "audit.scope"
    MODEL_CALL = "model.call"
    MODEL_CALL_FAILED = "model.call_failed"
    EXTRACTION_RECORDED = "extraction.recorded"
    EXTRACTION_INCOMPLETE = "extraction.incomplete"
    EXTRACTION_FAILED = "extraction.failed"
    VERDICT_RECORDED = "verdict.recorded"
    VERDICT_FAILED = "verdict.failed"
    OUTCOME_IMPORTED = "outcome.imported"
    JUDGE_PRIMARY_SET = "judge.primary_set"
    BATCH_SUBMITTED = "batch.submitted"
    BATCH_COLLECTED = "batch.collected"
    JUDGE_VALIDATION_ITEM = "judge.validation_item"
    JUDGE_VALIDATED = "judge.validated"
    # The typed debate (lhl_platform/debate/events.py defines the payloads, a leaf module importing only domain).
    DEBATE_SCOPE = "debate.scope"
    DEBATE_TURN = "debate.turn"
    DEBATE_ROUTE = "debate.route"
    DEBATE_GATE = "debate.gate"
    DEBATE_OUTCOME = "debate.outcome"
    DEBATE_FAILED = "debate.failed"
    DEBATE_CALIBRATED = "debate.calibrated"
    DEBATE_VERDICT = "debate.verdict"
    DEBATE_VERDICT_FAILED = "debate.verdict_failed"


class Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CorpusIngested(Payload):
    corpus_id: str
    name: str
    source: str
    contracts: int = Field(ge=0)
    instances: int = Field(ge=0)
    present: int = Field(ge=0)
    files: dict[str, str] = Field(default_factory=dict, description="stored file name -> SHA-256")


class ModelRemoved(Payload):
    name: str


class JudgeValidationItem(Payload):
    """One suite item as a judge labelled it (kept so a rerun never calls the judge for it again)."""

    judge: str
    suite_digest: str
    item_id: str
    family: str
    kind: str
    request_key: str
    verdict: VerdictLabel | None
    mismatch_type: MismatchType | None
    reason: str = ""
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


class JudgeValidated(Payload):
    """A judge's result on the dissociation suite: per family, the share judged as expected."""

    judge: str
    judge_model_id: str
    judge_version: str
    corpus_id: str
    suite_version: str
    suite_digest: str
    seed: int
    items: int
    passed: bool
    families: dict[str, dict[str, Any]]


class JudgePrimarySet(Payload):
    """The judge every report uses unless told otherwise."""

    name: str


class AuditScope(Payload):
    model: str
    run: int
    corpus_id: str
    contract_ids: list[str]


class ModelCall(Payload):
    """One call as recorded: enough to answer the same request again without calling; never a secret."""

    request_key: str
    subject: str
    model: str
    provider: str
    model_id: str
    prompt_version: str
    run: int
    params: dict[str, Any]
    finish_reason: str
    error: str | None
    latency_s: float
    usage: Usage
    content: dict[str, Any] | None
    raw_text: str = ""
    batch_id: str | None = None  # the provider batch job that served the call (priced at batch rates)


class BatchSubmitted(Payload):
    """A provider batch job holding some of a partition's requests, recorded as soon as its id exists: a
    run that stops while it is pending resumes by polling it, never by submitting the requests again."""

    model: str
    run: int
    provider: str
    model_id: str
    batch_id: str
    request_keys: list[str]
    contract_ids: list[str]


class BatchCollected(Payload):
    """A batch job that ended and whose results were recorded (as `model.call` events and instances)."""

    model: str
    run: int
    batch_id: str
    status: str
    answered: int
    failed: int


class ExtractionRecorded(Extraction):
    model_config = ConfigDict(frozen=True, extra="forbid")
    corpus_id: str
    request_key: str


class ExtractionIncomplete(Payload):
    model: str
    run: int
    contract_id: str
    problems: list[str]


class ExtractionFailed(Payload):
    model: str
    run: int
    contract_id: str
    stage: str
    reason: str


class VerdictRecorded(Payload):
    model: str
    run: int
    contract_id: str
    clause_type: str
    verdict: VerdictLabel
    mismatch_type: MismatchType
    reason: str
    judge: str
    judge_model_id: str
    prompt_version: str
    request_key: str
    usage: Usage
    latency_s: float
    params: dict[str, Any]


class OutcomeImported(InstanceOutcome):
    """An imported instance outcome; it belongs to the corpus that was active when it was imported."""

    corpus_id: str = "imported"


class VerdictFailed(ModelCall):
    judge: str
    contract_id: str
    clause_type: str
    reason: str


PAYLOADS: dict[EventType, type[BaseModel]] = {
    EventType.CORPUS_INGESTED: CorpusIngested,
    EventType.SUBSET_CREATED: Subset,
    EventType.MODEL_REGISTERED: ModelSpec,
    EventType.MODEL_REMOVED: ModelRemoved,
    EventType.AUDIT_SCOPE: AuditScope,
    EventType.MODEL_CALL: ModelCall,
    EventType.MODEL_CALL_FAILED: ModelCall,
    EventType.EXTRACTION_RECORDED: ExtractionRecorded,
    EventType.EXTRACTION_INCOMPLETE: ExtractionIncomplete,
    EventType.EXTRACTION_FAILED: ExtractionFailed,
    EventType.VERDICT_RECORDED: VerdictRecorded,
    EventType.VERDICT_FAILED: VerdictFailed,
    EventType.OUTCOME_IMPORTED: OutcomeImported,
    EventType.JUDGE_PRIMARY_SET: JudgePrimarySet,
    EventType.BATCH_SUBMITTED: BatchSubmitted,
    EventType.BATCH_COLLECTED: BatchCollected,
    EventType.JUDGE_VALIDATION_ITEM: JudgeValidationItem,
    EventType.JUDGE_VALIDATED: JudgeValidated,
    EventType.DEBATE_SCOPE: DebateScope,
    EventType.DEBATE_TURN: DebateTurn,
    EventType.DEBATE_ROUTE: RouteDecision,
    EventType.DEBATE_GATE: DebateGate,
    EventType.DEBATE_OUTCOME: DebateOutcome,
    EventType.DEBATE_FAILED: DebateFailed,
    EventType.DEBATE_CALIBRATED: DebateCalibration,
    EventType.DEBATE_VERDICT: DebateVerdict,
    EventType.DEBATE_VERDICT_FAILED: DebateVerdictFailed,
}


class EventPayloadError(ValueError):
    pass


def check_payload(event_type: EventType, payload: BaseModel) -> None:
    """On write: the payload is an instance of the class registered for its type (so it validated)."""
    expected = PAYLOADS[event_type]
    if type(payload) is not expected:
        raise EventPayloadError(f"{event_type} needs a {expected.__name__} payload, got {type(payload).__name__}")


def payload_of(event_type: str, payload_json: str) -> BaseModel:
    """On read: the stored JSON validated against its type's class."""
    try:
        cls = PAYLOADS[EventType(event_type)]
    except ValueError:
        raise EventPayloadError(f"unknown event type {event_type!r}") from None
    return cls.model_validate_json(payload_json)
