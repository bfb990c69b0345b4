"""Typed payloads of the debate's events, their event types and idempotency keys.

A debate partition's stream holds, per instance (contract, clause type), in order: one `model.call`
per answered role request (the log's own `ModelCall` payload, keyed by request key, so a re-run answers
it from the log; its subject is `<contract>/<clause type>#<round>:<role>`), one
`debate.turn` per role answer, a `debate.route` after each Supporter turn and after a re-extraction,
a `debate.gate` when the Judge proposes to flip the baseline, and finally one `debate.outcome`.
Replaying the turns of an instance in stream order replays the debate; an instance with an outcome
is finished and is skipped by a re-run. `debate.failed` records an instance that could not finish
(a failed or unparseable call); it has no outcome, so a re-run tries it again.

This module imports neither the event log nor the providers, so the log's payload registry can import
it: register each `DebateEventType` with its class from `EVENT_PAYLOADS`.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.debate.config import DebateConfig
from lhl_platform.debate.types import Position, Role, Route
from lhl_platform.domain.models import Usage
from lhl_platform.domain.taxonomy import Category


class DebateEventType(StrEnum):
    SCOPE = "debate.scope"
    TURN = "debate.turn"
    ROUTE = "debate.route"
    GATE = "debate.gate"
    OUTCOME = "debate.outcome"
    FAILED = "debate.failed"


class _Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class InstanceRef(_Payload):
    """Which debate an event belongs to: backbone, run, configuration and instance."""

    backbone: str
    run: int
    config_hash: str
    contract_id: str
    clause_type: str

    @property
    def subject(self) -> str:
        return f"{self.contract_id}/{self.clause_type}"

    def key(self, *parts: object) -> str:
        return ":".join(str(p) for p in (self.backbone, self.run, self.config_hash, self.contract_id,
                                         self.clause_type, *parts))


class DiscardedQuote(_Payload):
    """A quote a role offered that is not verbatim in the contract; it was not used."""

    role: Role
    round: int
    quote: str


class DebateTurn(InstanceRef):
    """One role's answer. `output` is the role's validated answer as given (before verbatim filtering;
    the quotes that filtering removed are in `discarded_quotes`)."""

    round: int
    role: Role
    request_key: str
    prompt_version: str
    output: dict[str, Any]
    discarded_quotes: tuple[str, ...] = ()
    usage: Usage = Field(default_factory=Usage)

    def parsed(self) -> BaseModel:
        """The output as the role's answer schema."""
        from lhl_platform.debate.roles import OUTPUT_OF_ROLE  # roles import providers; keep this module light

        return OUTPUT_OF_ROLE[self.role].model_validate(self.output)


class RouteDecision(InstanceRef):
    round: int
    after: Role
    route: Route
    structural_flag: bool
    agreed: bool
    consensus: Position | None = None
    reason: str


class GateDecision(_Payload):
    """One structural gate evaluated on the Judge's proposal. For the addition gate `passed` means the new
    detection stands; for the deletion gate it means the removal went through (False: blocked)."""

    gate: Literal["addition", "deletion"]
    baseline_present: bool
    proposed_present: bool
    verifier_confirmed: bool
    verifier_confidence: float
    consensus: Position | None
    required: tuple[str, ...]
    passed: bool
    reason: str


class DebateGate(GateDecision, InstanceRef):
    pass


class DebateOutcome(InstanceRef):
    """The debate's result for one instance, with everything needed to score and cost it."""

    category: Category
    prompt_version: str
    config_name: str
    config: DebateConfig
    baseline_present: bool
    baseline_quotes: tuple[str, ...]
    judge_present: bool
    final_present: bool
    final_quotes: tuple[str, ...]
    flipped: bool
    text_changed: bool
    rounds: int
    consensus: bool
    consensus_position: Position | None
    re_extracted: bool
    arbitrated: bool
    gates: tuple[GateDecision, ...] = ()
    discarded_quotes: tuple[DiscardedQuote, ...] = ()
    calls: int
    reused_calls: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int

    @property
    def final_text(self) -> str:
        return " ... ".join(self.final_quotes)


class DebateFailed(InstanceRef):
    role: Role
    round: int
    stage: Literal["call", "parse"]
    reason: str


class DebateScope(_Payload):
    backbone: str
    run: int
    config_name: str
    config_hash: str
    prompt_version: str
    contract_ids: tuple[str, ...]
    clause_types: tuple[str, ...]
    config: DebateConfig


# Event type -> payload class, for the log's payload registry.
EVENT_PAYLOADS: dict[DebateEventType, type[BaseModel]] = {
    DebateEventType.SCOPE: DebateScope, DebateEventType.TURN: DebateTurn, DebateEventType.ROUTE: RouteDecision,
    DebateEventType.GATE: DebateGate, DebateEventType.OUTCOME: DebateOutcome, DebateEventType.FAILED: DebateFailed}


def turn_key(ref: InstanceRef, round_no: int, role: Role) -> str:
    return f"{DebateEventType.TURN.value}:{ref.key(round_no, role.value)}"


def route_key(ref: InstanceRef, round_no: int, after: Role) -> str:
    return f"{DebateEventType.ROUTE.value}:{ref.key(round_no, after.value)}"


def gate_key(ref: InstanceRef, gate: str) -> str:
    return f"{DebateEventType.GATE.value}:{ref.key(gate)}"


def outcome_key(ref: InstanceRef) -> str:
    return f"{DebateEventType.OUTCOME.value}:{ref.key()}"


def failed_key(ref: InstanceRef) -> str:
    return f"{DebateEventType.FAILED.value}:{ref.key(uuid.uuid4().hex)}"


def call_key(request_key: str) -> str:
    return f"call:{request_key}"


def call_failed_key(request_key: str) -> str:
    return f"call_failed:{request_key}:{uuid.uuid4().hex}"


def scope_key(backbone: str, run: int, config_hash: str, contract_ids: Sequence[str]) -> str:
    digest = hashlib.sha256("\n".join(sorted(contract_ids)).encode()).hexdigest()[:16]
    return f"{DebateEventType.SCOPE.value}:{backbone}:{run}:{config_hash}:{digest}"
