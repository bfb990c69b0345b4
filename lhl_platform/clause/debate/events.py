"""Typed payloads of the debate's events, their event types and idempotency keys.

A debate partition's stream holds, per instance (contract, clause type), in order: one `model.call`
per answered role request (the log's own `ModelCall` payload, keyed by request key, so a re-run answers
it from the log; its subject is `<contract>/<clause type>#<round>:<role>`), one
`debate.turn` per role answer, a `debate.route` after each Supporter turn and after a re-extraction,
a `debate.gate` when the Judge proposes to flip the baseline, and finally one `debate.outcome`.
Replaying the turns of an instance in stream order replays the debate; an instance with an outcome
is finished and is skipped by a re-run. `debate.failed` records an instance that could not finish
(a failed or unparseable call); it has no outcome, so a re-run tries it again. The stream opens with
a `debate.scope` (the contracts, the configuration, the subset) and an `audit.scope` naming the debate
system (`<backbone>+debate`) with the contracts it was asked to cover, so the warehouse counts the
debated outputs as that system's instances (and any instance it lacks as a missing row).

Two other kinds of stream: `debate-calibration.model=<backbone>` holds `debate.calibrated` events (a
configuration derived from the backbone's measured profile), and `debate-judge.model=<backbone>.run=<run>`
holds the evaluation judge's `debate.verdict` (or `debate.verdict_failed`) on every true positive of the
debated outputs.

The types are registered with the log when this module is imported.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field

from lhl_platform.clause.debate.config import DebateConfig, MeasuredProfile
from lhl_platform.clause.debate.types import Position, Role, Route
from lhl_platform.domain.models import MismatchType, Usage, VerdictLabel
from lhl_platform.domain.taxonomy import Category
from lhl_platform.events.kinds import register_events
from lhl_platform.events.payloads import Payload as _Payload


class DebateEventType(StrEnum):
    SCOPE = "debate.scope"
    TURN = "debate.turn"
    ROUTE = "debate.route"
    GATE = "debate.gate"
    OUTCOME = "debate.outcome"
    FAILED = "debate.failed"
    CALIBRATED = "debate.calibrated"
    VERDICT = "debate.verdict"
    VERDICT_FAILED = "debate.verdict_failed"


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
    the quotes that filtering removed are in `discarded_quotes`); `roles.turn_output` reads it back typed."""

    round: int
    role: Role
    request_key: str
    prompt_version: str
    output: dict[str, Any]
    discarded_quotes: tuple[str, ...] = ()
    usage: Usage = Field(default_factory=Usage)


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
    """What one debate partition was asked to cover. `system` is the name the debated outputs are reported
    under (`<backbone>+debate`, see `system_name`); `subset` the stored subset the contracts came from."""

    backbone: str
    run: int
    config_name: str
    config_hash: str
    prompt_version: str
    contract_ids: tuple[str, ...]
    clause_types: tuple[str, ...]
    config: DebateConfig
    system: str = ""
    corpus_id: str | None = None
    subset: str | None = None


class DebateCalibration(_Payload):
    """A calibrated configuration derived from a backbone's measured profile (the `debate_calibration` asset):
    the profile, where it was measured (corpus, judge, runs, contracts) and the configuration it gave."""

    backbone: str
    corpus_id: str
    judge: str
    runs: tuple[int, ...]
    contracts: int
    instances: int
    profile: MeasuredProfile
    config: DebateConfig
    config_hash: str


class DebateVerdict(InstanceRef):
    """The evaluation judge's verdict on one debated instance that is a true positive after the debate (the
    judge of the audit, never the in-pipeline Judge). `reused` marks a verdict taken from the baseline's
    verdict on the identical request (same judge, clause, truth and text), not asked again."""

    config_name: str
    judge: str
    judge_model_id: str
    verdict: VerdictLabel
    mismatch_type: MismatchType
    reason: str
    prompt_version: str
    request_key: str
    reused: bool = False
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    params: dict[str, Any] = Field(default_factory=dict)


class DebateVerdictFailed(InstanceRef):
    """A judge call on a debated instance that gave no usable verdict; the instance stays unjudged."""

    judge: str
    judge_model_id: str
    request_key: str
    reason: str
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0


EVENT_PAYLOADS: dict[DebateEventType, type[BaseModel]] = {
    DebateEventType.SCOPE: DebateScope, DebateEventType.TURN: DebateTurn, DebateEventType.ROUTE: RouteDecision,
    DebateEventType.GATE: DebateGate, DebateEventType.OUTCOME: DebateOutcome, DebateEventType.FAILED: DebateFailed,
    DebateEventType.CALIBRATED: DebateCalibration, DebateEventType.VERDICT: DebateVerdict,
    DebateEventType.VERDICT_FAILED: DebateVerdictFailed}
register_events(EVENT_PAYLOADS, owner=__name__, staging={
    DebateEventType.SCOPE: "stg_debate_scope", DebateEventType.TURN: "stg_debate_turns",
    DebateEventType.ROUTE: "stg_debate_routes", DebateEventType.GATE: "stg_debate_gates",
    DebateEventType.OUTCOME: "stg_debate_outcomes", DebateEventType.FAILED: "stg_debate_failures",
    DebateEventType.CALIBRATED: "stg_debate_calibrations", DebateEventType.VERDICT: "stg_debate_verdicts",
    DebateEventType.VERDICT_FAILED: "stg_debate_verdict_failures"})

GENERIC_SUFFIX = "-generic"


def config_kind(config: DebateConfig) -> str:
    """`calibrated` for a configuration derived from a measured profile, else `generic`."""
    return "generic" if config.calibrated_from is None else "calibrated"


def system_name(backbone: str, config: DebateConfig) -> str:
    """The name debated outputs are reported under beside their base: `<backbone>+debate` for a calibrated
    debate, `<backbone>+debate-generic` for the ablation. The `+` keeps it apart from every registered model
    (registered names cannot hold one), so it names rows of the warehouse, never a model or a partition."""
    return f"{backbone}+debate" + ("" if config_kind(config) == "calibrated" else GENERIC_SUFFIX)


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


def scope_key(backbone: str, run: int, config_hash: str, contract_ids: Sequence[str], subset: str | None = None) -> str:
    digest = hashlib.sha256("\n".join(sorted(contract_ids)).encode()).hexdigest()[:16]
    return f"{DebateEventType.SCOPE.value}:{backbone}:{run}:{config_hash}:{digest}" + (f":{subset}" if subset else "")


def calibration_key(backbone: str, config_hash: str, profile_hash: str) -> str:
    return f"{DebateEventType.CALIBRATED.value}:{backbone}:{config_hash}:{profile_hash}"


def verdict_key(judge: str, ref: InstanceRef) -> str:
    return f"{DebateEventType.VERDICT.value}:{judge}:{ref.key()}"


def verdict_failed_key(judge: str, ref: InstanceRef) -> str:
    return f"{DebateEventType.VERDICT_FAILED.value}:{judge}:{ref.key(uuid.uuid4().hex)}"
