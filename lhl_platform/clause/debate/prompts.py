"""Versioned debate prompts and the Skeptic's typed challenge sets.

Messages are laid out for prefix caching: one system message shared by every role, then the contract,
then the role's instructions and the state of the debate. A provider that caches prefixes therefore
reuses the contract across all roles and clause types of a contract. The version is part of every
request key and every debate event.
"""

from __future__ import annotations

from lhl_platform.clause.debate.config import CategoryCalibration, Direction, Emphasis
from lhl_platform.clause.debate.roles import (
    ArbiterTask,
    Candidate,
    Challenge,
    ReExtractTask,
    RoleTask,
    SkepticTask,
    SupporterTask,
    TranscriptEntry,
    VerifierTask,
)
from lhl_platform.clause.debate.types import ChallengeKind
from lhl_platform.clause.extraction.definitions import DEFINITIONS, NOTES
from lhl_platform.domain.taxonomy import Category
from lhl_platform.providers.base import Message

DEBATE_PROMPT_VERSION = "debate-v1"

PRESENCE_QUESTION = ("Is the clause really in the contract, and is the quoted passage this clause rather than a "
                     "look-alike (a different clause type, or a passage that merely mentions a cue word)?")
OMISSION_QUESTION = ("The extraction says the clause is absent. Does the contract in fact contain a passage that "
                     "fits the definition?")

# The typed challenges of each category, asked about a present extraction.
CHALLENGE_SETS: dict[Category, tuple[tuple[ChallengeKind, str], ...]] = {
    Category.NUMERIC: (
        (ChallengeKind.VALUE_VERBATIM,
         "Does every amount, percentage, multiple and count in the extraction appear verbatim in the contract, "
         "or was a familiar market value (a 12-month fee cap, a round figure) put in its place?"),
    ),
    Category.OBLIGATION: (
        (ChallengeKind.MODAL_PRESERVED,
         "Is the modal verb preserved: does shall/must/will stay an obligation and may/can stay a permission?"),
        (ChallengeKind.POLARITY_PRESERVED,
         "Is every negation of the source kept, so that a prohibition is not turned into a permission?"),
    ),
    Category.TEMPORAL: (
        (ChallengeKind.STATED_NOT_INFERRED,
         "Is every date and duration stated explicitly in the contract, or was it inferred, computed or "
         "assumed from what such contracts usually say?"),
    ),
    Category.FACTUAL: (
        (ChallengeKind.FROM_DOCUMENT,
         "Does every name, title and jurisdiction come from the contract itself rather than from outside "
         "knowledge of the parties or of typical contracts?"),
    ),
}
CONDITION_QUESTIONS: dict[ChallengeKind, str] = {
    ChallengeKind.CARVE_OUTS_CAPTURED:
        "Does the extraction keep every condition, exception, carve-out and qualifier that the source passage "
        "attaches to the clause (except, unless, provided that, subject to, within, only)?",
    ChallengeKind.NO_ADDED_CONDITIONS:
        "Does the extraction assert any condition, exception or qualifier that the source passage does not have?",
}


def definition_text(clause_type: str) -> str:
    note = NOTES.get(clause_type)
    return DEFINITIONS[clause_type] + (f" NOTE: {note}" if note else "")


def challenges_for(category: Category, calibration: CategoryCalibration, candidate_present: bool,
                   ) -> tuple[Challenge, ...]:
    """The Skeptic's questions for one instance. A present extraction is questioned on presence (always) and
    on content; an absent one on omission. Challenges whose emphasis is low are left out, except presence;
    the condition challenge matching the measured direction is raised to high."""
    if not candidate_present:
        if calibration.omission is Emphasis.LOW:
            return ()
        return (Challenge(kind=ChallengeKind.OMISSION, question=OMISSION_QUESTION, priority=calibration.omission),)
    found = [Challenge(kind=ChallengeKind.PRESENCE, question=PRESENCE_QUESTION, priority=calibration.presence)]
    if calibration.content is not Emphasis.LOW:
        found += [Challenge(kind=kind, question=q, priority=calibration.content)
                  for kind, q in CHALLENGE_SETS[category]]
    emphasised = {Direction.EXTRA: ChallengeKind.NO_ADDED_CONDITIONS,
                  Direction.MISSING: ChallengeKind.CARVE_OUTS_CAPTURED}.get(calibration.direction)
    for kind, question in CONDITION_QUESTIONS.items():
        priority = Emphasis.HIGH if kind is emphasised else calibration.content
        if priority is not Emphasis.LOW:
            found.append(Challenge(kind=kind, question=question, priority=priority))
    return tuple(found)


_SYSTEM = """You take part in a structured review of one clause extraction from a commercial contract.
The review has six roles: a Skeptic who questions the extraction, a Supporter who defends it, a
Re-extractor who extracts the clause again from the contract, an Arbiter who settles a deadlock, a
Verifier who searches the contract independently, and a Judge who makes the binding decision. Each
message tells you which role to play. Rules for every role: use only the contract text below, never
what contracts of this kind usually say; every quote must be copied verbatim from the contract (exact
words, no paraphrase, nothing added or left out inside the quote); answer with JSON only, matching the
schema you are given."""

_ROLE_INSTRUCTIONS: dict[str, str] = {
    "debate.skeptic": """ROLE: Skeptic.
Question the extraction below. Answer every challenge listed, marking a finding as a problem only when
the contract text shows it; give the evidence in `detail`. Set `structural_error` when the extraction
quotes the wrong clause altogether (another clause type, or a passage that is not in the contract), as
opposed to imprecise content within the right clause. Set `claim` to whether you believe the clause is
present in the contract, and `accepts` to true only when you have no problem with the extraction.
Challenges marked high priority matter most.
JSON: {"findings": [{"kind": "<challenge kind>", "problem": true|false, "detail": "..."}],
"structural_error": true|false, "claim": "present"|"absent", "accepts": true|false, "rationale": "..."}""",
    "debate.supporter": """ROLE: Supporter.
Defend the extraction against the Skeptic using only verbatim quotes from the contract. Quote the
passages that support it in `quotes`. If the contract does not support the extraction, or the Skeptic's
problems are right, set `concedes` to true and take the position the evidence supports.
JSON: {"position": "present"|"absent", "concedes": true|false, "quotes": ["<verbatim passage>", ...],
"argument": "..."}""",
    "debate.reextract": """ROLE: Re-extractor.
The Skeptic found that the extraction quoted the wrong clause. Extract this clause type again from the
contract: quote it verbatim, or answer not present. Do not repeat a rejected quote unless the contract
shows it is this clause after all.
JSON: {"present": true|false, "quotes": ["<verbatim passage>", ...], "rationale": "..."}""",
    "debate.arbiter": """ROLE: Arbiter.
The Skeptic and the Supporter did not agree within the rounds allowed. Decide conservatively: keep the
baseline extraction unless the debate shows strong evidence against it (a quote that is not in the
contract, or a passage that plainly is not this clause; or, for an absent baseline, a verbatim passage
that plainly is this clause). Say whether you keep the baseline and whether the contrary evidence was
strong.
JSON: {"decision": "present"|"absent", "quotes": ["<verbatim passage>", ...], "keeps_baseline": true|false,
"strong_evidence": true|false, "rationale": "..."}""",
    "debate.verifier": """ROLE: Verifier.
Search the whole contract yourself for this clause type, independently of the debate; also check whether
each quote under review occurs in the contract and fits the definition. Report whether the clause is
present, the best verbatim quote (empty when absent), whether it fits the definition, and your
confidence between 0 and 1.
JSON: {"present": true|false, "quote": "<verbatim passage or empty>", "definition_fit": true|false,
"confidence": <0..1>, "rationale": "..."}""",
    "debate.judge": """ROLE: Judge.
Read the debate, the Verifier's report and the Arbiter's assessment (if any) and make the binding
decision: is the clause present, and if so which verbatim passages state it? Structural gates apply
after you: a new detection needs the Verifier's confirmation and the debate's consensus; a removal is
blocked when the Verifier confirms presence.
JSON: {"present": true|false, "quotes": ["<verbatim passage>", ...], "rationale": "..."}""",
}


def _candidate(label: str, candidate: Candidate) -> str:
    if not candidate.present:
        return f"{label}: not present"
    return f"{label}: present\n" + "\n".join(f'  - "{q}"' for q in candidate.quotes)


def _transcript(entries: tuple[TranscriptEntry, ...]) -> str:
    if not entries:
        return "Debate so far: (none)"
    lines = ["Debate so far:"]
    for e in entries:
        head = f"- round {e.round}, {e.role.value}" + (f", position {e.position.value}" if e.position else "")
        lines.append(f"{head}: {e.note}")
        lines += [f'    quote: "{q}"' for q in e.quotes]
    return "\n".join(lines)


def _body(task: RoleTask) -> list[str]:
    parts: list[str] = []
    if isinstance(task, SkepticTask):
        parts += [f"Round: {task.round}", _candidate("Extraction under review", task.candidate), "Challenges:"]
        parts += [f"- [{c.kind.value}, priority {c.priority.value}] {c.question}" for c in task.challenges]
        if not task.challenges:
            parts.append("- (none: accept the extraction unless the contract plainly contradicts it)")
        parts.append(_transcript(task.transcript))
    elif isinstance(task, SupporterTask):
        parts += [f"Round: {task.round}", _candidate("Extraction under review", task.candidate),
                  f"Skeptic's claim: {task.skeptic_claim.value}; structural error flagged: "
                  f"{'yes' if task.structural_error else 'no'}", "Skeptic's findings:"]
        parts += [f"- [{f.kind.value}] {'PROBLEM' if f.problem else 'ok'}: {f.detail}" for f in task.findings]
        parts.append(_transcript(task.transcript))
    elif isinstance(task, ReExtractTask):
        parts += [f"Round: {task.round}", f"Skeptic's reason: {task.reason}", "Rejected quotes:"]
        parts += [f'- "{q}"' for q in task.rejected_quotes] or ["- (none)"]
    elif isinstance(task, ArbiterTask):
        parts += [_candidate("Baseline extraction", task.baseline), _candidate("Extraction under debate",
                                                                                task.candidate),
                  _transcript(task.transcript)]
    elif isinstance(task, VerifierTask):
        parts.append("Quotes under review:")
        parts += [f'- "{q}"' for q in task.quotes_under_review] or ["- (none)"]
    else:
        v = task.verifier
        parts += [_candidate("Baseline extraction", task.baseline), _candidate("Extraction under debate",
                                                                                task.candidate),
                  _transcript(task.transcript),
                  f"Debate consensus: {task.consensus.value if task.consensus else 'none'}",
                  f"Verifier: present={v.present}, definition_fit={v.definition_fit}, "
                  f"confidence={v.confidence}, quote=\"{v.quote}\"; {v.rationale}"]
        if task.arbiter is not None:
            a = task.arbiter
            parts.append(f"Arbiter: decision={a.decision.value}, keeps_baseline={a.keeps_baseline}, "
                         f"strong_evidence={a.strong_evidence}; {a.rationale}")
        else:
            parts.append("Arbiter: not needed")
    return parts


def role_messages(task: RoleTask) -> tuple[Message, ...]:
    """The chat messages for one role task; everything the task holds is in them."""
    head = [_ROLE_INSTRUCTIONS[task.kind], "",
            f"Contract id: {task.contract_id}",
            f"Clause type: {task.clause_type} (category: {task.category.value})",
            f"Definition: {task.definition}"]
    return (Message(role="system", content=_SYSTEM),
            Message(role="user", content=f"CONTRACT:\n<<<\n{task.contract_text}\n>>>"),
            Message(role="user", content="\n".join(head + _body(task))))
