"""Run the debate over one partition (backbone x run, over a set of contracts), event-sourced.

Every instance (contract, clause type) with a baseline extraction is debated to an outcome. All calls,
turns, routes, gates and outcomes go to the partition's stream (see `events.py`). Re-running a
partition skips instances that already have an outcome, and answers every role request whose key is
already recorded from the log, so resuming after a crash repeats no completed call. A failed
instance becomes a `debate.failed` event and never fails the partition.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from lhl_platform.calls.ledger import recorded_calls
from lhl_platform.calls.loop import run_units
from lhl_platform.calls.policy import CommitPolicy, stage_writer
from lhl_platform.clause.debate import events as ev
from lhl_platform.clause.debate.config import DebateConfig
from lhl_platform.clause.debate.events import (
    DebateEventType,
    DebateFailed,
    DebateOutcome,
    DebateScope,
    DebateTurn,
    InstanceRef,
    config_kind,
    system_name,
)
from lhl_platform.clause.debate.machine import DebateError, RoleCaller, debate_instance
from lhl_platform.clause.debate.prompts import DEBATE_PROMPT_VERSION
from lhl_platform.domain.models import Contract, Extraction
from lhl_platform.domain.taxonomy import CLAUSE_TYPES, canonical_clause_type
from lhl_platform.events.kinds import payload_of
from lhl_platform.events.log import EventLog
from lhl_platform.events.payloads import AuditScope, EventType
from lhl_platform.progress import Progress, Tick
from lhl_platform.providers.base import ChatModel, close_model

STREAM_PREFIX = "debate.model="

# A paid backbone's debate commits every 16 finished instances (or 0.25 s), and starts no new debate while 32
# finished ones await their commit (`calls/policy.py`).
COMMIT = CommitPolicy(units=16)


def debate_stream(backbone: str, run: int, config: DebateConfig) -> str:
    """The conventional stream of one debate partition; the config hash keeps configurations apart."""
    return f"{STREAM_PREFIX}{backbone}.run={run}.config={config.hash}"


def debate_streams(log: EventLog, backbone: str, run: int) -> list[str]:
    """Every debate partition stream of one backbone and run (one per configuration debated)."""
    prefix = f"{STREAM_PREFIX}{backbone}.run={run}.config="
    return [s for s in log.streams() if s.startswith(prefix)]


def system_scope_key(system: str, corpus_id: str, contract_ids: Sequence[str]) -> str:
    digest = hashlib.sha256("\n".join(sorted(contract_ids)).encode()).hexdigest()[:16]
    return f"scope:{system}:{corpus_id}:{digest}"


class FailureNote(BaseModel):
    subject: str
    reason: str


class DebateSummary(BaseModel):
    """What one call of `run_debate_partition` did. Call and token counts are for calls made now;
    `reused_calls` were answered from the log. Outcome counts are for outcomes recorded now."""

    backbone: str
    run: int
    stream: str
    config_name: str
    config_hash: str
    config_kind: str = ""
    system: str = ""
    subset: str | None = None
    instances: int = 0
    decided: int = 0
    already_decided: int = 0
    missing_baselines: int = 0
    failures: list[FailureNote] = Field(default_factory=list)
    calls: int = 0
    reused_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    flipped: int = 0
    additions: int = 0
    deletions: int = 0
    blocked_additions: int = 0
    blocked_deletions: int = 0
    re_extracted: int = 0
    arbitrated: int = 0
    consensus: int = 0
    rounds: int = 0

    def count(self, outcome: DebateOutcome) -> None:
        self.decided += 1
        self.flipped += outcome.flipped
        self.additions += outcome.flipped and outcome.final_present
        self.deletions += outcome.flipped and not outcome.final_present
        for gate in outcome.gates:
            self.blocked_additions += gate.gate == "addition" and not gate.passed
            self.blocked_deletions += gate.gate == "deletion" and not gate.passed
        self.re_extracted += outcome.re_extracted
        self.arbitrated += outcome.arbitrated
        self.consensus += outcome.consensus
        self.rounds += outcome.rounds

    def metadata(self) -> dict[str, Any]:
        data = self.model_dump(exclude={"failures"})
        data["failed"] = len(self.failures)
        return data


def _raw(log: EventLog, stream: str, types: set[str]) -> list[tuple[str, str]]:
    if not (log.root / stream).exists():
        return []
    return [(e.type, e.payload) for e in log.read(stream) if e.type in types]


def read_events(log: EventLog, stream: str, contract_id: str | None = None,
                clause_type: str | None = None) -> list[BaseModel]:
    """The debate's typed events in stream order (scope, turns, routes, gates, outcomes, failures), or those of
    one contract or instance (no scope then): replaying an instance's events replays its debate turn by turn."""
    found: list[BaseModel] = []
    for type_, payload in _raw(log, stream, {t.value for t in DebateEventType}):
        event = payload_of(type_, payload)
        if contract_id is not None and getattr(event, "contract_id", None) != contract_id:
            continue
        if clause_type is not None and getattr(event, "clause_type", None) != clause_type:
            continue
        found.append(event)
    return found


def read_outcomes(log: EventLog, stream: str) -> list[DebateOutcome]:
    return [e for e in read_events(log, stream) if isinstance(e, DebateOutcome)]


def read_scopes(log: EventLog, stream: str) -> list[tuple[str, DebateScope]]:
    """The scope events of a debate stream with their times, oldest first."""
    if not (log.root / stream).exists():
        return []
    return [(e.time, DebateScope.model_validate_json(e.payload)) for e in log.read(stream)
            if e.type == DebateEventType.SCOPE.value]


def current_streams(log: EventLog, backbone: str, run: int) -> dict[str, str]:
    """The current debate stream of each configuration kind (`calibrated`, `generic`) for one backbone and
    run: the one whose configuration was debated most recently (its latest scope event is the newest).
    The warehouse applies the same rule (`int_debate_configs`)."""
    newest: dict[str, tuple[str, str]] = {}
    for stream in debate_streams(log, backbone, run):
        for time, scope in read_scopes(log, stream):
            kind = config_kind(scope.config)
            if kind not in newest or time > newest[kind][0]:
                newest[kind] = (time, stream)
    return {kind: stream for kind, (_, stream) in newest.items()}


def read_turns(log: EventLog, stream: str, contract_id: str, clause_type: str) -> list[DebateTurn]:
    return [e for e in read_events(log, stream, contract_id, clause_type) if isinstance(e, DebateTurn)]


async def run_debate_partition(log: EventLog, stream: str, backbone_name: str, run: int,
                               contracts: Sequence[Contract], baselines: Iterable[Extraction], model: ChatModel,
                               config: DebateConfig, *, concurrency: int = 4,
                               clause_types: Sequence[str] | None = None,
                               progress: Progress | None = None, corpus_id: str | None = None,
                               subset: str | None = None) -> DebateSummary:
    """Debate every (contract, clause type) of `contracts` that has a baseline; see the module docstring.

    `baselines` are the backbone's extractions (at most one per contract and clause type); instances
    without one are counted in `missing_baselines`. `model` answers every role; it is closed at the end.
    Given `corpus_id`, the partition also records which contracts the debate system (`system_name`) was
    asked to cover, as the audit does for a model, so the warehouse reports the debated outputs beside
    the base; `subset` names the stored subset the contracts came from.
    """
    config_hash = config.hash
    system = system_name(backbone_name, config)
    summary = DebateSummary(backbone=backbone_name, run=run, stream=stream, config_name=config.name,
                            config_hash=config_hash, config_kind=config_kind(config), system=system, subset=subset)
    by_instance: dict[tuple[str, str], Extraction] = {}
    for b in baselines:
        if (b.contract_id, b.clause_type) in by_instance:
            raise ValueError(f"two baselines for {b.contract_id!r} / {b.clause_type!r}")
        by_instance[(b.contract_id, b.clause_type)] = b
    types = tuple(canonical_clause_type(c) for c in (clause_types or CLAUSE_TYPES))
    work: list[tuple[Contract, Extraction]] = []
    for contract in contracts:
        for clause in types:
            baseline = by_instance.get((contract.contract_id, clause))
            if baseline is None:
                summary.missing_baselines += 1
            else:
                work.append((contract, baseline))
    summary.instances = len(work)
    durable = model.provider != "offline"
    try:
        with stage_writer(log, stream, COMMIT, durable) as writer:
            record = writer.append
            ids = [c.contract_id for c in contracts]
            record(DebateEventType.SCOPE, f"{backbone_name}/{run}",
                   ev.scope_key(backbone_name, run, config_hash, ids, subset),
                   DebateScope(backbone=backbone_name, run=run, config_name=config.name, config_hash=config_hash,
                               prompt_version=DEBATE_PROMPT_VERSION, contract_ids=tuple(ids), clause_types=types,
                               config=config, system=system, corpus_id=corpus_id, subset=subset))
            if corpus_id is not None:
                record(EventType.AUDIT_SCOPE, f"{system}/{run}", system_scope_key(system, corpus_id, ids),
                       AuditScope(model=system, run=run, corpus_id=corpus_id, contract_ids=ids))
            caller = RoleCaller(model=model, backbone=backbone_name, run=run, recorded=recorded_calls(log, stream),
                                record=record, system=system)

            def ref_of(unit: tuple[Contract, Extraction]) -> InstanceRef:
                contract, baseline = unit
                return InstanceRef(backbone=backbone_name, run=run, config_hash=config_hash,
                                   contract_id=contract.contract_id, clause_type=baseline.clause_type)

            def finished(unit: tuple[Contract, Extraction]) -> bool:
                if writer.has(ev.outcome_key(ref_of(unit))):
                    summary.already_decided += 1
                    return True
                return False

            async def debate(unit: tuple[Contract, Extraction]) -> None:
                ref = ref_of(unit)
                try:
                    outcome = await debate_instance(caller, config, unit[0], unit[1], record=record)
                except DebateError as exc:
                    summary.failures.append(FailureNote(subject=ref.subject, reason=str(exc)))
                    record(DebateEventType.FAILED, ref.subject, ev.failed_key(ref),
                           DebateFailed(**ref.model_dump(), role=exc.role, round=exc.round,
                                        stage="call" if exc.stage == "call" else "parse", reason=exc.reason[:2000]))
                else:
                    record(DebateEventType.OUTCOME, ref.subject, ev.outcome_key(ref), outcome)
                    summary.count(outcome)

            def tick(done: int, total: int) -> None:
                if progress is not None:
                    fresh = caller.fresh
                    progress(Tick(done, total, fresh.calls, fresh.input_tokens, fresh.output_tokens,
                                  fresh.cached_tokens, len(summary.failures)))

            try:
                await run_units(writer, work, debate, skip=finished, concurrency=concurrency,
                                window=COMMIT.window if durable else None, progress=tick)
            finally:
                summary.calls, summary.input_tokens = caller.fresh.calls, caller.fresh.input_tokens
                summary.output_tokens, summary.cached_tokens = caller.fresh.output_tokens, caller.fresh.cached_tokens
                summary.reused_calls = caller.reused.calls
    finally:
        await close_model(model)
    return summary
