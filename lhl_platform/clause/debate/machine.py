"""The debate over one instance as a state machine, in plain typed Python.

    baseline -> [round r: Skeptic -> Supporter -> route]
        route REEXTRACT  (structural flag in round 1, at most once) -> Re-extractor -> next round, or
                          the Arbiter when no round is left
        route VERIFY     (Skeptic and Supporter agree)              -> Verifier -> Judge
        route NEXT_ROUND (disagreement, a round left)               -> round r + 1
        route ARBITER    (disagreement, rounds exhausted)           -> Arbiter -> Verifier -> Judge
    Judge's proposal -> addition gate (absent -> present) or deletion gate (present -> absent) -> outcome

Agreement after a Supporter turn: both hold the same position on presence, and either the Skeptic
accepts the extraction or the Supporter concedes the Skeptic's points. Every quote a role offers must
be verbatim in the contract (the Judge may also keep a quote already under debate); any other quote
is discarded and recorded. The routing and gate rules are pure functions, tested on their own.

Each role call goes through a `RoleCaller` and so the call engine's ledger, which answers a request from the
recorded calls when its request key is already there and otherwise calls the model and records the call; every
turn, route and gate is handed to a recorder as a typed event payload.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from lhl_platform.calls.ledger import CallLedger, Recorder, Unusable, Who
from lhl_platform.clause.debate import events as ev
from lhl_platform.clause.debate.config import DebateConfig, GatePolicy
from lhl_platform.clause.debate.events import (
    DebateEventType,
    DebateGate,
    DebateOutcome,
    DebateTurn,
    DiscardedQuote,
    GateDecision,
    InstanceRef,
    RouteDecision,
)
from lhl_platform.clause.debate.evidence import is_verbatim, squash
from lhl_platform.clause.debate.prompts import DEBATE_PROMPT_VERSION, challenges_for, definition_text, role_messages
from lhl_platform.clause.debate.roles import (
    ArbiterAssessment,
    ArbiterOutput,
    ArbiterTask,
    Candidate,
    DebateJudgeOutput,
    DebateJudgeTask,
    ReExtractOutput,
    ReExtractTask,
    RoleTask,
    SkepticOutput,
    SkepticTask,
    SupporterOutput,
    SupporterTask,
    TranscriptEntry,
    VerifierOutput,
    VerifierReport,
    VerifierTask,
)
from lhl_platform.clause.debate.types import Position, Role, Route
from lhl_platform.domain.models import Contract, Extraction
from lhl_platform.domain.taxonomy import category_of
from lhl_platform.events.payloads import ModelCall
from lhl_platform.progress import CallTally
from lhl_platform.providers.base import ChatModel, ModelRequest, Usage

STAGE = "debate"  # the stage name on the debate's call records

_Out = TypeVar("_Out", bound=BaseModel)


def _ignore(type_: str, subject: str, key: str, payload: BaseModel) -> None:
    return None


# Routing and gates ---------------------------------------------------------------------------------

def agreement(skeptic: SkepticOutput, supporter: SupporterOutput) -> bool:
    return supporter.position == skeptic.claim and (skeptic.accepts or supporter.concedes)


def route_after_supporter(round_no: int, max_rounds: int, structural_flag: bool, re_extracted: bool,
                          agreed: bool) -> Route:
    """Structural flag in round 1 -> re-extract (once); agreement -> Verifier; disagreement with a round left ->
    another round; rounds exhausted -> Arbiter."""
    if structural_flag and round_no == 1 and not re_extracted:
        return Route.REEXTRACT
    if agreed:
        return Route.VERIFY
    if round_no < max_rounds:
        return Route.NEXT_ROUND
    return Route.ARBITER


def route_after_reextract(round_no: int, max_rounds: int) -> Route:
    """The re-extracted answer is debated in the next round, or goes to the Arbiter when none is left."""
    return Route.NEXT_ROUND if round_no < max_rounds else Route.ARBITER


def verifier_confirms(report: VerifierReport, min_confidence: float) -> bool:
    """A confirmation: present, fitting the definition, with a verbatim quote, at least this confident."""
    return report.present and report.definition_fit and bool(report.quote) and report.confidence >= min_confidence


def addition_gate(policy: GatePolicy, verifier: VerifierReport, consensus: Position | None) -> GateDecision:
    """Absent -> present stands only with the Verifier's confirmation and the debate's consensus on presence."""
    confirmed = verifier_confirms(verifier, policy.addition_min_confidence)
    required, missing = [], []
    if policy.addition_requires_verifier:
        required.append("verifier")
        if not confirmed:
            missing.append(f"no Verifier confirmation at confidence >= {policy.addition_min_confidence:g}")
    if policy.addition_requires_consensus:
        required.append("consensus")
        if consensus is not Position.PRESENT:
            missing.append("no debate consensus that the clause is present")
    return GateDecision(gate="addition", baseline_present=False, proposed_present=True, verifier_confirmed=confirmed,
                        verifier_confidence=verifier.confidence, consensus=consensus, required=tuple(required),
                        passed=not missing, reason="; ".join(missing) or "confirmed by the Verifier and the debate")


def deletion_gate(policy: GatePolicy, verifier: VerifierReport, consensus: Position | None) -> GateDecision:
    """Present -> absent is blocked when the Verifier confirms presence (and, if required, without consensus)."""
    confirmed = verifier_confirms(verifier, policy.deletion_block_confidence)
    required, blocks = [], []
    if policy.deletion_blocked_by_verifier:
        required.append("verifier")
        if confirmed:
            blocks.append(f"the Verifier confirms presence at confidence >= {policy.deletion_block_confidence:g}")
    if policy.deletion_requires_consensus:
        required.append("consensus")
        if consensus is not Position.ABSENT:
            blocks.append("no debate consensus that the clause is absent")
    return GateDecision(gate="deletion", baseline_present=True, proposed_present=False, verifier_confirmed=confirmed,
                        verifier_confidence=verifier.confidence, consensus=consensus, required=tuple(required),
                        passed=not blocks, reason="; ".join(blocks) or "the Verifier does not confirm presence")


# Calls ---------------------------------------------------------------------------------------------

class DebateError(Exception):
    """An instance that cannot finish: a role call failed or its answer does not fit the role's schema."""

    def __init__(self, role: Role, round_no: int, stage: str, reason: str) -> None:
        super().__init__(f"{role.value} (round {round_no}): {reason}")
        self.role, self.round, self.stage, self.reason = role, round_no, stage, reason


@dataclass
class Tally:
    """Calls and tokens, for one instance or a whole partition. Reused calls are answered from the log;
    their tokens are the recorded ones (what the decision cost when it was made)."""

    calls: int = 0
    reused_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0

    def add(self, usage: Usage, reused: bool) -> None:
        self.calls += 1
        self.reused_calls += reused
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cached_tokens += usage.cached_tokens


@dataclass
class RoleCaller:
    """Asks the backbone one role's question through the call engine's ledger, which answers it from the recorded
    calls when it can. Only answers that fit the role's schema are recorded as reusable calls; a failed call or
    an answer outside the schema is recorded as a failed call and raises DebateError. Safe to share between
    concurrent instances of one event loop."""

    model: ChatModel
    backbone: str
    run: int
    recorded: dict[str, ModelCall] = field(default_factory=dict)
    record: Recorder = _ignore
    system: str = ""  # the debate system the calls' usage belongs to (`<backbone>+debate`)
    ledger: CallLedger = field(init=False)

    def __post_init__(self) -> None:
        self.ledger = CallLedger(self.backbone, self.recorded, self.record)

    @property
    def fresh(self) -> CallTally:
        return self.ledger.fresh

    @property
    def reused(self) -> CallTally:
        return self.ledger.reused

    def request(self, task: RoleTask) -> ModelRequest:
        return ModelRequest(provider=self.model.provider, model_id=self.model.model_id,
                            prompt_version=DEBATE_PROMPT_VERSION, run=self.run, params=self.model.request_params(),
                            messages=role_messages(task), task=task)

    async def ask(self, ref: InstanceRef, role: Role, round_no: int, task: RoleTask,
                  tally: Tally) -> tuple[BaseModel, ModelRequest, Usage]:
        """The role's validated answer; raises DebateError when there is none."""
        request = self.request(task)
        who = Who(stage=STAGE, subject=call_subject(ref, role, round_no), system=self.system, item=ref.contract_id)
        answer = await self.ledger.ask(self.model, request, who, lambda call, validated: _validate(task, call.content))
        tally.add(answer.call.usage, reused=answer.reused)
        if answer.failed is not None or answer.output is None:
            raise DebateError(role, round_no, answer.failed or "parse", answer.reason)
        return answer.output, request, answer.call.usage


def _validate(task: RoleTask, content: dict[str, Any] | None) -> BaseModel:
    try:
        return type(task).output.model_validate(content or {})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top"
        raise Unusable(f"answer does not fit the schema at {where}: {first['msg']}") from None


def call_subject(ref: InstanceRef, role: Role, round_no: int) -> str:
    """The subject of a role call's record: `<contract>/<clause type>#<round>:<role>`."""
    return f"{ref.subject}#{round_no}:{role.value}"


# One instance --------------------------------------------------------------------------------------

def _dedupe(quotes: list[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for q in quotes:
        if squash(q) and squash(q) not in seen:
            seen[squash(q)] = q
    return tuple(seen.values())


class _Instance:
    """The mutable state of one debate while it runs."""

    def __init__(self, ledger: RoleCaller, config: DebateConfig, contract: Contract, baseline: Extraction,
                 record: Recorder) -> None:
        self.ledger, self.config, self.contract, self.record = ledger, config, contract, record
        self.clause = baseline.clause_type
        self.category = category_of(self.clause)
        self.calibration = config.for_category(self.category)
        self.ref = InstanceRef(backbone=ledger.backbone, run=ledger.run, config_hash=config.hash,
                               contract_id=contract.contract_id, clause_type=self.clause)
        self.baseline = Candidate(present=baseline.present, quotes=baseline.quotes)
        self.candidate = self.baseline
        self.transcript: list[TranscriptEntry] = []
        self.discarded: list[DiscardedQuote] = []
        self.tally = Tally()
        self.common: dict[str, Any] = {
            "contract_id": contract.contract_id, "contract_text": contract.text, "clause_type": self.clause,
            "category": self.category, "definition": definition_text(self.clause)}

    async def ask(self, role: Role, round_no: int, task: RoleTask, output_type: type[_Out],
                  quotes: Callable[[_Out], list[str]] | None = None,
                  allowed: tuple[str, ...] = ()) -> tuple[_Out, tuple[str, ...]]:
        """Call one role; returns its answer and the quotes of it that may be used."""
        output, request, usage = await self.ledger.ask(self.ref, role, round_no, task, self.tally)
        assert isinstance(output, output_type)
        kept: tuple[str, ...] = ()
        dropped: list[str] = []
        if quotes is not None:
            on_table = {squash(q) for q in allowed}
            offered = quotes(output)
            usable = [q for q in offered if is_verbatim(q, self.contract.text) or squash(q) in on_table]
            kept = _dedupe(usable)
            dropped = [q for q in offered if squash(q) and q not in usable]
            self.discarded += [DiscardedQuote(role=role, round=round_no, quote=q) for q in dropped]
        turn = DebateTurn(**self.ref.model_dump(), round=round_no, role=role, request_key=request.key(),
                          prompt_version=DEBATE_PROMPT_VERSION, output=output.model_dump(mode="json"),
                          discarded_quotes=tuple(dropped), usage=usage)
        self.record(DebateEventType.TURN, self.ref.subject, ev.turn_key(self.ref, round_no, role), turn)
        return output, kept

    def route(self, round_no: int, after: Role, route: Route, structural: bool, agreed: bool,
              consensus: Position | None, reason: str) -> None:
        decision = RouteDecision(**self.ref.model_dump(), round=round_no, after=after, route=route,
                                 structural_flag=structural, agreed=agreed, consensus=consensus, reason=reason)
        self.record(DebateEventType.ROUTE, self.ref.subject, ev.route_key(self.ref, round_no, after), decision)

    async def run(self) -> DebateOutcome:
        max_rounds = self.config.max_rounds
        consensus: Position | None = None
        re_extracted = False
        last_support: tuple[str, ...] = ()
        arbiter: ArbiterAssessment | None = None
        arbiter_quotes: tuple[str, ...] = ()
        round_no = 1
        while True:
            skeptic, _ = await self.ask(Role.SKEPTIC, round_no, SkepticTask(
                **self.common, round=round_no, candidate=self.candidate,
                challenges=challenges_for(self.category, self.calibration, self.candidate.present),
                transcript=tuple(self.transcript)), SkepticOutput)
            problems = [f"{f.kind.value}: {f.detail}" for f in skeptic.findings if f.problem]
            self.transcript.append(TranscriptEntry(
                round=round_no, role=Role.SKEPTIC, position=skeptic.claim,
                note=f"{'accepts' if skeptic.accepts else 'disputes'} the extraction; structural error: "
                     f"{'yes' if skeptic.structural_error else 'no'}; problems: {'; '.join(problems) or 'none'}; "
                     f"{skeptic.rationale}"))
            supporter, last_support = await self.ask(Role.SUPPORTER, round_no, SupporterTask(
                **self.common, round=round_no, candidate=self.candidate, findings=tuple(skeptic.findings),
                skeptic_claim=skeptic.claim, structural_error=skeptic.structural_error,
                transcript=tuple(self.transcript)), SupporterOutput, quotes=lambda o: o.quotes)
            self.transcript.append(TranscriptEntry(
                round=round_no, role=Role.SUPPORTER, position=supporter.position, quotes=last_support,
                note=f"{'concedes; ' if supporter.concedes else ''}{supporter.argument}"))
            agreed = agreement(skeptic, supporter)
            route = route_after_supporter(round_no, max_rounds, skeptic.structural_error, re_extracted, agreed)
            position = skeptic.claim if agreed else None
            self.route(round_no, Role.SUPPORTER, route, skeptic.structural_error, agreed, position,
                       _route_reason(route, round_no, max_rounds))
            if route is Route.REEXTRACT:
                flagged = self.candidate.quotes
                reextract, quotes = await self.ask(Role.REEXTRACTOR, round_no, ReExtractTask(
                    **self.common, round=round_no, rejected_quotes=flagged,
                    reason=skeptic.rationale or "structural error"), ReExtractOutput, quotes=lambda o: o.quotes)
                re_extracted = True
                self.candidate = Candidate(present=reextract.present and bool(quotes),
                                           quotes=quotes if reextract.present else ())
                self.transcript.append(TranscriptEntry(
                    round=round_no, role=Role.REEXTRACTOR,
                    position=Position.PRESENT if self.candidate.present else Position.ABSENT,
                    quotes=self.candidate.quotes, note=reextract.rationale))
                route = route_after_reextract(round_no, max_rounds)
                self.route(round_no, Role.REEXTRACTOR, route, True, False, None,
                           _route_reason(route, round_no, max_rounds))
            if route is Route.VERIFY:
                consensus = position
                break
            if route is Route.ARBITER:
                arbiter_out, arbiter_quotes = await self.ask(Role.ARBITER, round_no, ArbiterTask(
                    **self.common, baseline=self.baseline, candidate=self.candidate,
                    transcript=tuple(self.transcript)), ArbiterOutput, quotes=lambda o: o.quotes,
                    allowed=self.baseline.quotes + self.candidate.quotes)
                arbiter = ArbiterAssessment(decision=arbiter_out.decision, keeps_baseline=arbiter_out.keeps_baseline,
                                            strong_evidence=arbiter_out.strong_evidence,
                                            rationale=arbiter_out.rationale)
                self.transcript.append(TranscriptEntry(
                    round=round_no, role=Role.ARBITER, position=arbiter_out.decision, quotes=arbiter_quotes,
                    note=f"keeps baseline: {arbiter_out.keeps_baseline}; strong evidence: "
                         f"{arbiter_out.strong_evidence}; {arbiter_out.rationale}"))
                break
            round_no += 1

        review = _dedupe(list(self.baseline.quotes + self.candidate.quotes + last_support + arbiter_quotes))
        verifier_out, verified = await self.ask(Role.VERIFIER, round_no, VerifierTask(
            **self.common, quotes_under_review=review), VerifierOutput,
            quotes=lambda o: [o.quote] if o.quote else [])
        verifier = VerifierReport(present=verifier_out.present, quote=verified[0] if verified else "",
                                  definition_fit=verifier_out.definition_fit,
                                  confidence=min(1.0, max(0.0, verifier_out.confidence)),
                                  rationale=verifier_out.rationale)
        on_table = self.baseline.quotes + self.candidate.quotes
        judge, judged = await self.ask(Role.JUDGE, round_no, DebateJudgeTask(
            **self.common, baseline=self.baseline, candidate=self.candidate, transcript=tuple(self.transcript),
            consensus=consensus, verifier=verifier, arbiter=arbiter), DebateJudgeOutput,
            quotes=lambda o: o.quotes, allowed=on_table)
        if judge.present and not judged:
            # Present without a usable quote: the quotes under debate stand, else the Verifier's.
            judged = (self.candidate.quotes if self.candidate.present else
                      self.baseline.quotes if self.baseline.present else (verifier.quote,) if verifier.quote else ())
        proposed = judge.present and bool(judged)
        final_present, final_quotes = proposed, judged if proposed else ()
        gates: list[GateDecision] = []
        policy = self.calibration.gate
        if proposed != self.baseline.present:
            gate = (addition_gate if proposed else deletion_gate)(policy, verifier, consensus)
            gates.append(gate)
            self.record(DebateEventType.GATE, self.ref.subject, ev.gate_key(self.ref, gate.gate),
                        DebateGate(**self.ref.model_dump(), **gate.model_dump()))
            if not gate.passed:
                final_present, final_quotes = self.baseline.present, self.baseline.quotes
        return DebateOutcome(
            **self.ref.model_dump(), category=self.category, prompt_version=DEBATE_PROMPT_VERSION,
            config_name=self.config.name, config=self.config, baseline_present=self.baseline.present,
            baseline_quotes=self.baseline.quotes, judge_present=proposed, final_present=final_present,
            final_quotes=tuple(final_quotes), flipped=final_present != self.baseline.present,
            text_changed=final_present and self.baseline.present and tuple(final_quotes) != self.baseline.quotes,
            rounds=round_no, consensus=consensus is not None, consensus_position=consensus,
            re_extracted=re_extracted, arbitrated=arbiter is not None, gates=tuple(gates),
            discarded_quotes=tuple(self.discarded), calls=self.tally.calls, reused_calls=self.tally.reused_calls,
            input_tokens=self.tally.input_tokens, output_tokens=self.tally.output_tokens,
            cached_tokens=self.tally.cached_tokens)


def _route_reason(route: Route, round_no: int, max_rounds: int) -> str:
    return {
        Route.REEXTRACT: "the Skeptic flagged a structural error in round 1: re-extract once",
        Route.VERIFY: "the Skeptic and the Supporter agree",
        Route.NEXT_ROUND: f"no agreement; round {round_no + 1} of {max_rounds} follows",
        Route.ARBITER: f"no agreement after {round_no} of {max_rounds} rounds: the Arbiter decides",
    }[route]


async def debate_instance(ledger: RoleCaller, config: DebateConfig, contract: Contract, baseline: Extraction, *,
                          record: Recorder = _ignore) -> DebateOutcome:
    """Debate one instance (the baseline's contract and clause type) to its outcome; the outcome itself is
    returned, not recorded. Raises DebateError when a role call fails or answers outside its schema."""
    if baseline.contract_id != contract.contract_id:
        raise ValueError(f"baseline is for contract {baseline.contract_id!r}, not {contract.contract_id!r}")
    return await _Instance(ledger, config, contract, baseline, record).run()
