"""The platform's own event types (corpora, the model registry, subsets, partition scopes, model calls and batch
jobs), each with the one Pydantic class its payload must be.

Every other event type is registered by the module that owns it (`kinds.register_events`): the clause suite's
extraction and verdict events, the debate's, each suite's. Writers hand the log a payload object; the log checks
that its class is the one registered for the event type and stores its canonical JSON (`encoding.py`). Readers
get typed payloads back with `kinds.payload_of`. The warehouse stages every registered type's payloads as typed
columns generated from its class.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field

from lhl_platform.domain.models import Frozen, ModelSpec, PriceOrigin, Subset, Usage
from lhl_platform.events.kinds import EventPayloadError, check_payload, payload_of, register_events

__all__ = ["AuditScope", "BatchCollected", "BatchSubmitted", "CorpusIngested", "EventPayloadError", "EventType",
           "JudgePrimarySet", "ModelCall", "ModelRemoved", "Payload", "check_payload", "payload_of"]


class EventType(StrEnum):
    CORPUS_INGESTED = "corpus.ingested"
    SUBSET_CREATED = "subset.created"
    MODEL_REGISTERED = "model.registered"
    MODEL_REMOVED = "model.removed"
    JUDGE_PRIMARY_SET = "judge.primary_set"
    AUDIT_SCOPE = "audit.scope"
    MODEL_CALL = "model.call"
    MODEL_CALL_FAILED = "model.call_failed"
    BATCH_SUBMITTED = "batch.submitted"
    BATCH_COLLECTED = "batch.collected"


class Payload(Frozen):
    """The base of every event payload, the platform's and every suite's: frozen, no field unknown."""


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


class JudgePrimarySet(Payload):
    """The judge every report uses unless told otherwise."""

    name: str


class AuditScope(Payload):
    model: str
    run: int
    corpus_id: str
    contract_ids: list[str]


class ModelCall(Payload):
    """One call as recorded: enough to answer the same request again without calling; never a secret. Every
    call of every stage and suite is one, so usage and cost have one source. `model` is the registered model
    that answered (its prices apply); `system` and `item` say whose figures the call's usage belongs to."""

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
    # Recorded since every stage's calls are model.call events; empty in older records, which were extraction
    # calls and debate role calls (whose subject holds a '#').
    stage: str = ""  # the stage that made the call: extraction, judge, debate, ...
    system: str = ""  # the system whose usage it is (the audited model, a debate system); empty: `model`
    item: str = ""  # the item whose usage it is (a contract); empty: `subject`
    audit_run: int | None = None  # the audit round whose usage it is, where the request's run differs (a judge's is 0)
    served_model: str | None = None  # the model version the provider says answered, when it says so
    # What the call cost (USD) at the rates in force when it was made, and where they came from; None: unknown (the
    # model is priced neither by the table nor by its registration), or recorded before calls were costed.
    cost_usd: float | None = None
    price: PriceOrigin | None = None


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


register_events({
    EventType.CORPUS_INGESTED: CorpusIngested,
    EventType.SUBSET_CREATED: Subset,
    EventType.MODEL_REGISTERED: ModelSpec,
    EventType.MODEL_REMOVED: ModelRemoved,
    EventType.JUDGE_PRIMARY_SET: JudgePrimarySet,
    EventType.AUDIT_SCOPE: AuditScope,
    EventType.MODEL_CALL: ModelCall,
    EventType.MODEL_CALL_FAILED: ModelCall,
    EventType.BATCH_SUBMITTED: BatchSubmitted,
    EventType.BATCH_COLLECTED: BatchCollected,
}, owner=__name__, staging={
    EventType.CORPUS_INGESTED: "stg_corpus_ingested", EventType.SUBSET_CREATED: "stg_subset_created",
    EventType.MODEL_REGISTERED: "stg_model_registered", EventType.MODEL_REMOVED: "stg_model_removed",
    EventType.JUDGE_PRIMARY_SET: "stg_judge_primary_set", EventType.AUDIT_SCOPE: "stg_audit_scope",
    EventType.MODEL_CALL: "stg_model_calls", EventType.MODEL_CALL_FAILED: "stg_model_call_failures",
    EventType.BATCH_SUBMITTED: "stg_batches_submitted", EventType.BATCH_COLLECTED: "stg_batches_collected"})
