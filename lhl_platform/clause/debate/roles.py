"""The six debate roles as typed tasks, each naming the Pydantic schema its answer must validate against.

Any ChatModel answers them: an LLM reads the messages rendered from the task (`prompts.py`), an offline
algorithm reads the task itself (`offline.py`). Every field of a task is rendered into its messages,
so the request key (which covers the messages) changes whenever the task does.

Output schemas avoid free-form maps and numeric bounds so that providers' strict structured-output
modes accept them; the state machine checks what a schema cannot (verbatim quotes, confidence range).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from lhl_platform.clause.debate.config import Emphasis
from lhl_platform.clause.debate.events import DebateTurn
from lhl_platform.clause.debate.types import ChallengeKind, Position, Role
from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.domain.taxonomy import Category
from lhl_platform.providers.base import Task


class Candidate(_Frozen):
    """An extraction under debate: not present, or present with quotes."""

    present: bool
    quotes: tuple[str, ...] = ()


class Challenge(_Frozen):
    """A question the Skeptic must answer, with the emphasis the configuration gives it."""

    kind: ChallengeKind
    question: str
    priority: Emphasis


class TranscriptEntry(_Frozen):
    """One turn as later roles see it."""

    round: int
    role: Role
    position: Position | None = None
    quotes: tuple[str, ...] = ()
    note: str = ""


class _Instance(Task):
    """What every role knows: the contract, the clause type and its definition."""

    contract_id: str
    contract_text: str
    clause_type: str
    category: Category
    definition: str


# Answers ------------------------------------------------------------------------------------------

class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChallengeFinding(_Output):
    kind: ChallengeKind
    problem: bool
    detail: str


class SkepticOutput(_Output):
    findings: list[ChallengeFinding]
    structural_error: bool
    claim: Position
    accepts: bool
    rationale: str


class SupporterOutput(_Output):
    position: Position
    concedes: bool
    quotes: list[str]
    argument: str


class ReExtractOutput(_Output):
    present: bool
    quotes: list[str]
    rationale: str


class ArbiterOutput(_Output):
    decision: Position
    quotes: list[str]
    keeps_baseline: bool
    strong_evidence: bool
    rationale: str


class VerifierOutput(_Output):
    present: bool
    quote: str
    definition_fit: bool
    confidence: float
    rationale: str


class DebateJudgeOutput(_Output):
    present: bool
    quotes: list[str]
    rationale: str


# Tasks --------------------------------------------------------------------------------------------

class SkepticTask(_Instance):
    kind: Literal["debate.skeptic"] = "debate.skeptic"
    round: int
    candidate: Candidate
    challenges: tuple[Challenge, ...]
    transcript: tuple[TranscriptEntry, ...] = ()


class SupporterTask(_Instance):
    kind: Literal["debate.supporter"] = "debate.supporter"
    round: int
    candidate: Candidate
    findings: tuple[ChallengeFinding, ...]
    skeptic_claim: Position
    structural_error: bool
    transcript: tuple[TranscriptEntry, ...] = ()


class ReExtractTask(_Instance):
    kind: Literal["debate.reextract"] = "debate.reextract"
    round: int
    rejected_quotes: tuple[str, ...]
    reason: str


class ArbiterTask(_Instance):
    kind: Literal["debate.arbiter"] = "debate.arbiter"
    baseline: Candidate
    candidate: Candidate
    transcript: tuple[TranscriptEntry, ...]


class VerifierTask(_Instance):
    kind: Literal["debate.verifier"] = "debate.verifier"
    quotes_under_review: tuple[str, ...]


class ArbiterAssessment(_Frozen):
    decision: Position
    keeps_baseline: bool
    strong_evidence: bool
    rationale: str


class VerifierReport(_Frozen):
    present: bool
    quote: str
    definition_fit: bool
    confidence: float
    rationale: str


class DebateJudgeTask(_Instance):
    kind: Literal["debate.judge"] = "debate.judge"
    baseline: Candidate
    candidate: Candidate
    transcript: tuple[TranscriptEntry, ...]
    consensus: Position | None
    verifier: VerifierReport
    arbiter: ArbiterAssessment | None = None


SkepticTask.output = SkepticOutput
SupporterTask.output = SupporterOutput
ReExtractTask.output = ReExtractOutput
ArbiterTask.output = ArbiterOutput
VerifierTask.output = VerifierOutput
DebateJudgeTask.output = DebateJudgeOutput

RoleTask = SkepticTask | SupporterTask | ReExtractTask | ArbiterTask | VerifierTask | DebateJudgeTask
ROLE_OF_TASK: dict[str, Role] = {
    "debate.skeptic": Role.SKEPTIC, "debate.supporter": Role.SUPPORTER, "debate.reextract": Role.REEXTRACTOR,
    "debate.arbiter": Role.ARBITER, "debate.verifier": Role.VERIFIER, "debate.judge": Role.JUDGE}

OUTPUT_OF_ROLE: dict[Role, type[BaseModel]] = {
    Role.SKEPTIC: SkepticOutput, Role.SUPPORTER: SupporterOutput, Role.REEXTRACTOR: ReExtractOutput,
    Role.ARBITER: ArbiterOutput, Role.VERIFIER: VerifierOutput, Role.JUDGE: DebateJudgeOutput}


def turn_output(turn: DebateTurn) -> BaseModel:
    """A recorded turn's output as its role's answer schema."""
    return OUTPUT_OF_ROLE[turn.role].model_validate(turn.output)
