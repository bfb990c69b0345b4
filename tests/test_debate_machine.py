"""The debate state machine, read like its rules.

Routing after each Supporter turn: a structural flag by the Skeptic in round 1 -> re-extract (once,
never in round 2); agreement -> Verifier; disagreement with a round left -> another round; rounds
exhausted -> Arbiter, then Verifier and Judge. The addition gate (absent -> present) needs Verifier
confirmation and debate consensus; the deletion gate (present -> absent) is blocked when the Verifier
confirms presence. Each case scripts every role's answer and checks the path taken and the outcome.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel

from lhl_platform.clause.debate.config import GENERIC, DebateConfig
from lhl_platform.clause.debate.events import DebateEventType, DebateOutcome, DebateTurn, RouteDecision
from lhl_platform.clause.debate.machine import (
    RoleCaller,
    addition_gate,
    debate_instance,
    deletion_gate,
    route_after_reextract,
    route_after_supporter,
)
from lhl_platform.clause.debate.roles import (
    ROLE_OF_TASK,
    ArbiterOutput,
    ChallengeFinding,
    DebateJudgeOutput,
    ReExtractOutput,
    SkepticOutput,
    SupporterOutput,
    VerifierOutput,
    VerifierReport,
    turn_output,
)
from lhl_platform.clause.debate.types import ChallengeKind, Position, Role, Route
from lhl_platform.domain.models import Contract, Extraction
from lhl_platform.events.payloads import EventType
from lhl_platform.providers.base import ModelRequest, ModelResponse, Usage

TEXT = ("MASTER SUPPLY AGREEMENT\n"
        "This Agreement is made on March 1, 2024 between Acme Corp. and Beta LLC.\n"
        "Supplier's total liability under this Agreement shall not exceed the fees paid in the prior twelve (12) "
        "months.\n"
        "Buyer may audit Supplier's records once per year upon thirty (30) days' notice.\n"
        "This Agreement is governed by the laws of the State of Delaware.\n")
CAP = "Supplier's total liability under this Agreement shall not exceed the fees paid in the prior twelve (12) months."
AUDIT = "Buyer may audit Supplier's records once per year upon thirty (30) days' notice."
LAW = "This Agreement is governed by the laws of the State of Delaware."
CONTRACT = Contract(contract_id="c1", filename="c1.txt", text=TEXT, sha256="0" * 64)

P, A = Position.PRESENT, Position.ABSENT


# Scripted answers ----------------------------------------------------------------------------------

def skeptic(claim: Position = P, accepts: bool = True, structural: bool = False) -> SkepticOutput:
    return SkepticOutput(findings=[ChallengeFinding(kind=ChallengeKind.PRESENCE, problem=not accepts, detail="d")],
                         structural_error=structural, claim=claim, accepts=accepts, rationale="r")


def supporter(position: Position = P, concedes: bool = False, quotes: tuple[str, ...] = (CAP,)) -> SupporterOutput:
    return SupporterOutput(position=position, concedes=concedes, quotes=list(quotes), argument="a")


def verifier(present: bool = True, quote: str = CAP, confidence: float = 0.9) -> VerifierOutput:
    return VerifierOutput(present=present, quote=quote if present else "", definition_fit=present,
                          confidence=confidence if present else 0.0, rationale="v")


def judge(present: bool = True, quotes: tuple[str, ...] = (CAP,)) -> DebateJudgeOutput:
    return DebateJudgeOutput(present=present, quotes=list(quotes) if present else [], rationale="j")


def arbiter(decision: Position = P, quotes: tuple[str, ...] = (CAP,), keeps: bool = True) -> ArbiterOutput:
    return ArbiterOutput(decision=decision, quotes=list(quotes), keeps_baseline=keeps, strong_evidence=not keeps,
                         rationale="x")


def reextract(present: bool = True, quotes: tuple[str, ...] = (CAP,)) -> ReExtractOutput:
    return ReExtractOutput(present=present, quotes=list(quotes) if present else [], rationale="again")


Script = dict[tuple[Role, int | None], BaseModel]


class ScriptedRoles:
    """A ChatModel answering each role from a script keyed by (role, round); rounds of the Arbiter,
    Verifier and Judge are not scripted (key None). Records every request it receives."""

    provider = "scripted"
    model_id = "script"

    def __init__(self, script: Script, usage: Usage | None = None) -> None:
        self.script = script
        self.usage = usage or Usage(input_tokens=100, output_tokens=10)
        self.asked: list[tuple[Role, int | None]] = []
        self.keys: list[str] = []

    def request_params(self) -> dict[str, Any]:
        return {"temperature": 0.0}

    async def complete(self, request: ModelRequest) -> ModelResponse:
        role = ROLE_OF_TASK[request.task.kind]
        round_no = getattr(request.task, "round", None)
        self.asked.append((role, round_no))
        self.keys.append(request.key())
        answer = self.script.get((role, round_no)) or self.script[(role, None)]
        return ModelResponse(content=answer.model_dump(mode="json"), usage=self.usage)


@dataclass
class Recorded:
    events: list[tuple[str, str, BaseModel]] = field(default_factory=list)

    def __call__(self, type_: str, subject: str, key: str, payload: BaseModel) -> None:
        self.events.append((type_, key, payload))

    def routes(self) -> list[tuple[int, Role, Route]]:
        return [(p.round, p.after, p.route) for _, _, p in self.events if isinstance(p, RouteDecision)]


def run_case(script: Script, baseline_present: bool, baseline_quotes: tuple[str, ...] = (CAP,),
             config: DebateConfig = GENERIC, clause: str = "Cap On Liability",
             ) -> tuple[DebateOutcome, ScriptedRoles, Recorded]:
    model = ScriptedRoles(script)
    recorded = Recorded()
    baseline = Extraction(model="base", run=1, contract_id="c1", clause_type=clause, present=baseline_present,
                          quotes=baseline_quotes if baseline_present else ())
    ledger = RoleCaller(model=model, backbone="base", run=1, record=recorded)
    outcome = asyncio.run(debate_instance(ledger, config, CONTRACT, baseline, record=recorded))
    return outcome, model, recorded


# The routing rule on its own -----------------------------------------------------------------------

@pytest.mark.parametrize(("round_no", "structural", "re_extracted", "agreed", "expected"), [
    (1, True, False, True, Route.REEXTRACT),     # a round-1 structural flag wins over agreement
    (1, True, False, False, Route.REEXTRACT),
    (1, True, True, False, Route.NEXT_ROUND),    # once only
    (2, True, False, False, Route.ARBITER),      # never in round 2
    (2, True, False, True, Route.VERIFY),
    (1, False, False, True, Route.VERIFY),
    (1, False, False, False, Route.NEXT_ROUND),
    (2, False, False, False, Route.ARBITER),
])
def test_route_after_supporter(round_no, structural, re_extracted, agreed, expected):
    assert route_after_supporter(round_no, 2, structural, re_extracted, agreed) is expected


def test_after_a_re_extraction_the_next_round_debates_it_unless_no_round_is_left():
    assert route_after_reextract(1, 2) is Route.NEXT_ROUND
    assert route_after_reextract(1, 1) is Route.ARBITER


# Every routing path through the machine ------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    name: str
    baseline_present: bool
    script: Script
    routes: list[tuple[int, Role, Route]]
    rounds: int
    final_present: bool
    consensus: Position | None
    re_extracted: bool = False
    arbitrated: bool = False
    gates: tuple[tuple[str, bool], ...] = ()


CASES = [
    Case("agreement goes straight to the Verifier", True,
         {(Role.SKEPTIC, 1): skeptic(), (Role.SUPPORTER, 1): supporter(), (Role.VERIFIER, None): verifier(),
          (Role.JUDGE, None): judge()},
         routes=[(1, Role.SUPPORTER, Route.VERIFY)], rounds=1, final_present=True, consensus=P),
    Case("disagreement in round 1, agreement in round 2", True,
         {(Role.SKEPTIC, 1): skeptic(A, accepts=False), (Role.SUPPORTER, 1): supporter(),
          (Role.SKEPTIC, 2): skeptic(), (Role.SUPPORTER, 2): supporter(), (Role.VERIFIER, None): verifier(),
          (Role.JUDGE, None): judge()},
         routes=[(1, Role.SUPPORTER, Route.NEXT_ROUND), (2, Role.SUPPORTER, Route.VERIFY)], rounds=2,
         final_present=True, consensus=P),
    Case("deadlock after two rounds goes to the Arbiter, then Verifier and Judge", True,
         {(Role.SKEPTIC, None): skeptic(A, accepts=False), (Role.SUPPORTER, None): supporter(),
          (Role.ARBITER, None): arbiter(), (Role.VERIFIER, None): verifier(), (Role.JUDGE, None): judge()},
         routes=[(1, Role.SUPPORTER, Route.NEXT_ROUND), (2, Role.SUPPORTER, Route.ARBITER)], rounds=2,
         final_present=True, consensus=None, arbitrated=True),
    Case("a round-1 structural flag re-extracts once; round 2 debates the new answer", True,
         {(Role.SKEPTIC, 1): skeptic(A, accepts=False, structural=True), (Role.SUPPORTER, 1): supporter(A, True, ()),
          (Role.REEXTRACTOR, 1): reextract(quotes=(AUDIT,)), (Role.SKEPTIC, 2): skeptic(),
          (Role.SUPPORTER, 2): supporter(quotes=(AUDIT,)), (Role.VERIFIER, None): verifier(quote=AUDIT),
          (Role.JUDGE, None): judge(quotes=(AUDIT,))},
         routes=[(1, Role.SUPPORTER, Route.REEXTRACT), (1, Role.REEXTRACTOR, Route.NEXT_ROUND),
                 (2, Role.SUPPORTER, Route.VERIFY)], rounds=2, final_present=True, consensus=P, re_extracted=True),
    Case("a structural flag in round 2 never re-extracts", True,
         {(Role.SKEPTIC, 1): skeptic(A, accepts=False), (Role.SUPPORTER, 1): supporter(),
          (Role.SKEPTIC, 2): skeptic(A, accepts=False, structural=True), (Role.SUPPORTER, 2): supporter(),
          (Role.ARBITER, None): arbiter(), (Role.VERIFIER, None): verifier(), (Role.JUDGE, None): judge()},
         routes=[(1, Role.SUPPORTER, Route.NEXT_ROUND), (2, Role.SUPPORTER, Route.ARBITER)], rounds=2,
         final_present=True, consensus=None, arbitrated=True),
    Case("re-extraction fires once even when round 2 flags again", True,
         {(Role.SKEPTIC, None): skeptic(A, accepts=False, structural=True),
          (Role.SUPPORTER, None): supporter(), (Role.REEXTRACTOR, 1): reextract(),
          (Role.ARBITER, None): arbiter(), (Role.VERIFIER, None): verifier(), (Role.JUDGE, None): judge()},
         routes=[(1, Role.SUPPORTER, Route.REEXTRACT), (1, Role.REEXTRACTOR, Route.NEXT_ROUND),
                 (2, Role.SUPPORTER, Route.ARBITER)], rounds=2, final_present=True, consensus=None,
         re_extracted=True, arbitrated=True),
    Case("addition passes with Verifier confirmation and consensus", False,
         {(Role.SKEPTIC, 1): skeptic(P, accepts=False), (Role.SUPPORTER, 1): supporter(P, concedes=True),
          (Role.VERIFIER, None): verifier(), (Role.JUDGE, None): judge()},
         routes=[(1, Role.SUPPORTER, Route.VERIFY)], rounds=1, final_present=True, consensus=P,
         gates=(("addition", True),)),
    Case("addition without consensus is refused even when the Verifier confirms", False,
         {(Role.SKEPTIC, None): skeptic(P, accepts=False), (Role.SUPPORTER, None): supporter(A, quotes=()),
          (Role.ARBITER, None): arbiter(P, keeps=False), (Role.VERIFIER, None): verifier(),
          (Role.JUDGE, None): judge()},
         routes=[(1, Role.SUPPORTER, Route.NEXT_ROUND), (2, Role.SUPPORTER, Route.ARBITER)], rounds=2,
         final_present=False, consensus=None, arbitrated=True, gates=(("addition", False),)),
    Case("addition with consensus but no Verifier confirmation is refused", False,
         {(Role.SKEPTIC, 1): skeptic(P, accepts=False), (Role.SUPPORTER, 1): supporter(P, concedes=True),
          (Role.VERIFIER, None): verifier(present=False), (Role.JUDGE, None): judge()},
         routes=[(1, Role.SUPPORTER, Route.VERIFY)], rounds=1, final_present=False, consensus=P,
         gates=(("addition", False),)),
    Case("deletion is blocked when the Verifier confirms presence", True,
         {(Role.SKEPTIC, 1): skeptic(A, accepts=False), (Role.SUPPORTER, 1): supporter(A, True, ()),
          (Role.VERIFIER, None): verifier(), (Role.JUDGE, None): judge(False)},
         routes=[(1, Role.SUPPORTER, Route.VERIFY)], rounds=1, final_present=True, consensus=A,
         gates=(("deletion", False),)),
    Case("deletion goes through when the Verifier does not confirm presence", True,
         {(Role.SKEPTIC, 1): skeptic(A, accepts=False), (Role.SUPPORTER, 1): supporter(A, True, ()),
          (Role.VERIFIER, None): verifier(present=False), (Role.JUDGE, None): judge(False)},
         routes=[(1, Role.SUPPORTER, Route.VERIFY)], rounds=1, final_present=False, consensus=A,
         gates=(("deletion", True),)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_routing_paths_and_gates(case: Case):
    outcome, model, recorded = run_case(case.script, case.baseline_present)
    assert recorded.routes() == case.routes
    assert outcome.rounds == case.rounds
    assert outcome.final_present is case.final_present
    assert outcome.flipped is (case.final_present != case.baseline_present)
    assert outcome.consensus_position == case.consensus and outcome.consensus is (case.consensus is not None)
    assert outcome.re_extracted is case.re_extracted
    assert outcome.arbitrated is case.arbitrated
    assert tuple((g.gate, g.passed) for g in outcome.gates) == case.gates
    # Every call is one turn, in the order the roles spoke, and the outcome counts them all.
    turns = [(p.role, p.round) for _, _, p in recorded.events if isinstance(p, DebateTurn)]
    assert [r for r, _ in turns] == [r for r, _ in model.asked]
    assert outcome.calls == len(model.asked) and outcome.reused_calls == 0
    assert outcome.input_tokens == 100 * len(model.asked)
    assert model.asked[-2:] == [(Role.VERIFIER, None), (Role.JUDGE, None)]
    assert (Role.ARBITER, None) in model.asked or not case.arbitrated


def test_a_blocked_deletion_keeps_the_baseline_quotes():
    script: Script = {(Role.SKEPTIC, 1): skeptic(A, accepts=False), (Role.SUPPORTER, 1): supporter(A, True, ()),
                      (Role.VERIFIER, None): verifier(), (Role.JUDGE, None): judge(False)}
    outcome, _, recorded = run_case(script, True)
    assert outcome.final_quotes == (CAP,) and not outcome.text_changed
    gate_events = [p for t, _, p in recorded.events if t == DebateEventType.GATE]
    assert len(gate_events) == 1 and "Verifier confirms presence" in gate_events[0].reason  # type: ignore[attr-defined]


def test_the_re_extracted_answer_replaces_the_candidate_and_can_change_the_text():
    outcome, _, _ = run_case(CASES[3].script, True, baseline_quotes=(LAW,))
    assert outcome.final_quotes == (AUDIT,) and outcome.text_changed and not outcome.flipped


def test_one_round_configured_sends_a_disagreement_straight_to_the_arbiter():
    one_round = GENERIC.model_copy(update={"max_rounds": 1, "name": "one-round"})
    script: Script = {(Role.SKEPTIC, 1): skeptic(A, accepts=False), (Role.SUPPORTER, 1): supporter(),
                      (Role.ARBITER, None): arbiter(), (Role.VERIFIER, None): verifier(), (Role.JUDGE, None): judge()}
    outcome, _, recorded = run_case(script, True, config=one_round)
    assert recorded.routes() == [(1, Role.SUPPORTER, Route.ARBITER)] and outcome.rounds == 1
    assert outcome.config_name == "one-round" and outcome.config_hash == one_round.hash != GENERIC.hash


# Verbatim quotes -----------------------------------------------------------------------------------

def test_a_supporter_quote_not_in_the_contract_is_discarded_and_recorded():
    invented = "Supplier's total liability shall not exceed five million dollars."
    script: Script = {(Role.SKEPTIC, 1): skeptic(), (Role.SUPPORTER, 1): supporter(quotes=(CAP, invented)),
                      (Role.VERIFIER, None): verifier(), (Role.JUDGE, None): judge()}
    outcome, _, recorded = run_case(script, True)
    assert [(d.role, d.quote) for d in outcome.discarded_quotes] == [(Role.SUPPORTER, invented)]
    support_turn = next(p for _, _, p in recorded.events if isinstance(p, DebateTurn) and p.role is Role.SUPPORTER)
    assert support_turn.discarded_quotes == (invented,)
    assert turn_output(support_turn) == supporter(quotes=(CAP, invented))  # the answer as given is kept


def test_whitespace_and_typographic_quotes_do_not_make_a_quote_non_verbatim():
    spaced = "Supplier\u2019s total liability   under this Agreement\nshall not exceed"
    script: Script = {(Role.SKEPTIC, 1): skeptic(), (Role.SUPPORTER, 1): supporter(quotes=(spaced,)),
                      (Role.VERIFIER, None): verifier(), (Role.JUDGE, None): judge()}
    outcome, _, _ = run_case(script, True)
    assert outcome.discarded_quotes == ()


def test_a_verifier_quote_not_in_the_contract_is_no_confirmation():
    script: Script = {(Role.SKEPTIC, 1): skeptic(P, accepts=False), (Role.SUPPORTER, 1): supporter(P, True),
                      (Role.VERIFIER, None): verifier(quote="Liability is capped at the fees."),
                      (Role.JUDGE, None): judge()}
    outcome, _, _ = run_case(script, False)
    assert not outcome.final_present and outcome.gates[0].gate == "addition" and not outcome.gates[0].passed
    assert not outcome.gates[0].verifier_confirmed


def test_the_judge_may_keep_a_quote_under_debate_even_if_it_is_not_verbatim():
    paraphrase = "Liability is capped at twelve months of fees."
    script: Script = {(Role.SKEPTIC, 1): skeptic(), (Role.SUPPORTER, 1): supporter(),
                      (Role.VERIFIER, None): verifier(), (Role.JUDGE, None): judge(quotes=(paraphrase, "made up"))}
    outcome, _, _ = run_case(script, True, baseline_quotes=(paraphrase,))
    assert outcome.final_quotes == (paraphrase,)
    assert [d.quote for d in outcome.discarded_quotes] == ["made up"]


# Gates on their own --------------------------------------------------------------------------------

REPORT = VerifierReport(present=True, quote=CAP, definition_fit=True, confidence=0.6, rationale="")


def test_gate_thresholds_come_from_the_policy():
    strict = GENERIC.categories[next(iter(GENERIC.categories))].gate.model_copy(
        update={"addition_min_confidence": 0.75, "deletion_block_confidence": 0.75})
    assert not addition_gate(strict, REPORT, P).passed          # 0.6 is not confident enough to add
    assert deletion_gate(strict, REPORT, A).passed               # nor to block a removal
    lenient = strict.model_copy(update={"addition_min_confidence": 0.5, "deletion_block_confidence": 0.34})
    assert addition_gate(lenient, REPORT, P).passed
    assert not deletion_gate(lenient, REPORT, A).passed


def test_generic_gates_are_symmetric_a_removal_also_needs_consensus():
    policy = next(iter(GENERIC.categories.values())).gate
    absent = REPORT.model_copy(update={"present": False, "quote": "", "confidence": 0.0})
    assert not deletion_gate(policy, absent, None).passed
    assert deletion_gate(policy, absent, A).passed


def test_failed_and_unparseable_calls_raise_debate_error_and_record_the_failed_call():
    from lhl_platform.clause.debate.machine import DebateError

    class Broken(ScriptedRoles):
        async def complete(self, request: ModelRequest) -> ModelResponse:
            raise ConnectionError("provider down")

    recorded = Recorded()
    ledger = RoleCaller(model=Broken({}), backbone="base", run=1, record=recorded)
    baseline = Extraction(model="base", run=1, contract_id="c1", clause_type="Cap On Liability", present=True,
                          quotes=(CAP,))
    with pytest.raises(DebateError, match="provider down") as info:
        asyncio.run(debate_instance(ledger, GENERIC, CONTRACT, baseline, record=recorded))
    assert info.value.role is Role.SKEPTIC and info.value.stage == "call"
    assert [t for t, _, _ in recorded.events] == [EventType.MODEL_CALL_FAILED]

    garbled: Script = {(Role.SKEPTIC, None): supporter()}  # a Supporter's answer to the Skeptic's task
    recorded = Recorded()
    ledger = RoleCaller(model=ScriptedRoles(garbled), backbone="base", run=1, record=recorded)
    with pytest.raises(DebateError, match="schema") as info:
        asyncio.run(debate_instance(ledger, GENERIC, CONTRACT, baseline))
    assert info.value.stage == "parse"
    # Not a reusable answer: recorded as a failed call, so a re-run asks again.
    assert [t for t, _, _ in recorded.events] == [EventType.MODEL_CALL_FAILED] and ledger.recorded == {}
