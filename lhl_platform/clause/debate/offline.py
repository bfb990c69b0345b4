"""`OfflineDebateModel`: deterministic offline algorithms for the six debate roles.

They read only the role task (the contract text, the clause type, the extraction and the debate so
far), never an answer key. The evidence they use is in `evidence.py`: whether a quote is verbatim,
where a non-verbatim quote comes from, the clause type's cue fit (the lexical extractor's cue
patterns), and the lexical extractor's own answer for the clause type.

A passage "shows the clause type's cues" when its cue fit is at least 1/3 (`PARTIAL_FIT`): one
weak cue word is not enough.

- Skeptic. For a present extraction it locates each quote in the contract. It flags a structural error
  when no quote can be located, or when no located passage shows the clause type's cues. It claims the
  clause absent when the best fit (including verbatim evidence the Supporter gave in earlier rounds)
  is below the bar its presence emphasis sets: high 1.0 (the extractor's own threshold), normal 0.5,
  low 1/3. For each typed challenge asked it compares each non-verbatim quote
  with its source passage: numbers and dates (numeric, temporal), modal class and negations
  (obligation), words absent from the contract (factual), condition markers dropped or added. For an
  absent extraction it asks the lexical extractor, when the omission challenge is asked, and claims
  the clause present if that finds it.
- Supporter. Defends a present extraction with the verbatim source passages of its quotes that show the
  clause type's cues (or, failing those, what the lexical extractor finds); it concedes the
  Skeptic's content problems when a quote is not verbatim (its verbatim passage differs), and concedes
  absence when it has nothing to quote. Defends an absent extraction unless the lexical extractor finds
  the clause, in which case it concedes and quotes it.
- Re-extractor: the lexical extractor's answer for the clause type.
- Arbiter (conservative): keeps a present baseline unless none of its quotes can be located or none
  shows the clause type's cues (then it takes a re-extracted answer that shows them, or absence);
  keeps an absent baseline unless an extraction under debate, or the lexical extractor, gives a
  passage at the clause's full threshold.
- Verifier: the best of the located quotes under review and the lexical extractor's own find, by fit;
  present (and fitting the definition) at fit 1/3 or more, confidence = min(1, fit), quote verbatim.
- Judge: follows the Arbiter when there was one, else the consensus; keeps the extraction's quotes,
  replacing a non-verbatim quote by its verbatim source passage; for a new detection quotes the
  Supporter's (or the Arbiter's, or the Verifier's) evidence; decides absent when the Verifier finds
  nothing and no quote can be located.
"""

from __future__ import annotations

import json
import time
from typing import Any

from pydantic import BaseModel

from lhl_platform.clause.debate.config import Emphasis
from lhl_platform.clause.debate.evidence import PARTIAL_FIT, cue_fit, is_verbatim, locate, search
from lhl_platform.clause.debate.roles import (
    ArbiterOutput,
    ArbiterTask,
    ChallengeFinding,
    DebateJudgeOutput,
    DebateJudgeTask,
    ReExtractOutput,
    ReExtractTask,
    SkepticOutput,
    SkepticTask,
    SupporterOutput,
    SupporterTask,
    TranscriptEntry,
    VerifierOutput,
    VerifierTask,
)
from lhl_platform.clause.debate.types import ChallengeKind, Position, Role
from lhl_platform.lexicon import (
    condition_markers,
    content,
    has_month,
    modal_classes,
    negation_count,
    numbers,
    tokens,
)
from lhl_platform.providers.base import ModelRequest, ModelResponse, Task, Usage, approx_tokens

OFFLINE_DEBATE_VERSION = "offline-debate-v1"
FULL_FIT = 1.0
_PRESENCE_BAR = {Emphasis.HIGH: FULL_FIT, Emphasis.NORMAL: 0.5, Emphasis.LOW: PARTIAL_FIT}
_CONTENT_KINDS = {ChallengeKind.VALUE_VERBATIM, ChallengeKind.MODAL_PRESERVED, ChallengeKind.POLARITY_PRESERVED,
                  ChallengeKind.STATED_NOT_INFERRED, ChallengeKind.FROM_DOCUMENT, ChallengeKind.CARVE_OUTS_CAPTURED,
                  ChallengeKind.NO_ADDED_CONDITIONS}


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _content_problem(kind: ChallengeKind, quote: str, source: str, contract_text: str) -> str | None:
    """What is wrong with a quote against its source passage under one challenge, or None."""
    q, s = tokens(quote), tokens(source)
    if kind is ChallengeKind.VALUE_VERBATIM:
        extra = numbers(q) - numbers(s)
        return f"values not in the source: {sorted(extra)}" if extra else None
    if kind is ChallengeKind.STATED_NOT_INFERRED:
        extra = numbers(q) - numbers(s)
        month_shift = has_month(q) and not has_month(s)
        if extra or month_shift:
            return f"date or duration not stated in the source: {sorted(extra)}"
        return None
    if kind is ChallengeKind.MODAL_PRESERVED:
        mq, ms = modal_classes(q), modal_classes(s)
        return f"modality {sorted(mq)} where the source has {sorted(ms)}" if mq != ms else None
    if kind is ChallengeKind.POLARITY_PRESERVED:
        nq, ns = negation_count(q), negation_count(s)
        return f"{nq} negations where the source has {ns}" if nq != ns else None
    if kind is ChallengeKind.FROM_DOCUMENT:
        outside = content(q) - set(tokens(contract_text))
        return f"words not in the contract: {sorted(outside)[:8]}" if outside else None
    if kind is ChallengeKind.CARVE_OUTS_CAPTURED:
        dropped = set(condition_markers(source)) - set(condition_markers(quote))
        return f"conditions of the source left out: {sorted(dropped)}" if dropped else None
    if kind is ChallengeKind.NO_ADDED_CONDITIONS:
        added = set(condition_markers(quote)) - set(condition_markers(source))
        return f"conditions the source lacks: {sorted(added)}" if added else None
    return None


def _verbatim_evidence(entries: tuple[TranscriptEntry, ...], role: Role, clause: str, text: str) -> float:
    return max((cue_fit(clause, q, text) for e in entries if e.role is role for q in e.quotes
                if is_verbatim(q, text)), default=0.0)


def skeptic(task: SkepticTask) -> SkepticOutput:
    text, clause = task.contract_text, task.clause_type
    asked = {c.kind: c for c in task.challenges}
    if not task.candidate.present:
        found = search(clause, text) if ChallengeKind.OMISSION in asked else None
        findings = []
        if ChallengeKind.OMISSION in asked:
            detail = f'the contract has: "{_short(found.quotes[0])}"' if found else "no passage with the clause's cues"
            findings.append(ChallengeFinding(kind=ChallengeKind.OMISSION, problem=found is not None, detail=detail))
        return SkepticOutput(findings=findings, structural_error=False,
                             claim=Position.PRESENT if found else Position.ABSENT, accepts=found is None,
                             rationale="a passage fits the clause" if found else "nothing in the contract fits")
    located = [(q, locate(q, text)) for q in task.candidate.quotes]
    fits = [cue_fit(clause, loc.passage, text) for _, loc in located if loc is not None]
    best = max(fits, default=0.0)
    presence = asked.get(ChallengeKind.PRESENCE)
    bar = _PRESENCE_BAR[presence.priority if presence else Emphasis.NORMAL]
    shown = max(best, _verbatim_evidence(task.transcript, Role.SUPPORTER, clause, text))
    structural = best < PARTIAL_FIT
    claim_present = shown >= bar
    if not fits:
        presence_detail = "no quote can be found in the contract"
    elif best < PARTIAL_FIT:
        presence_detail = f"the quoted passage shows too few of the clause type's cues (fit {best:.2f}): wrong clause"
    else:
        presence_detail = f"clause cue fit {shown:.2f} against a bar of {bar:.2f}"
    findings = [ChallengeFinding(kind=ChallengeKind.PRESENCE, problem=structural or not claim_present,
                                 detail=presence_detail)]
    for kind in asked:
        if kind not in _CONTENT_KINDS:
            continue
        problems = []
        for quote, loc in located:
            if loc is not None and not loc.verbatim:
                problem = _content_problem(kind, quote, loc.passage, text)
                if problem:
                    problems.append(f'"{_short(quote, 60)}": {problem}')
        findings.append(ChallengeFinding(kind=kind, problem=bool(problems),
                                         detail="; ".join(problems) or "consistent with the source"))
    accepts = claim_present and not any(f.problem for f in findings)
    return SkepticOutput(findings=findings, structural_error=structural,
                         claim=Position.PRESENT if claim_present else Position.ABSENT, accepts=accepts,
                         rationale=presence_detail)


def supporter(task: SupporterTask) -> SupporterOutput:
    text, clause = task.contract_text, task.clause_type
    if not task.candidate.present:
        found = search(clause, text)
        if task.skeptic_claim is Position.PRESENT and found is not None:
            return SupporterOutput(position=Position.PRESENT, concedes=True, quotes=list(found.quotes),
                                   argument="the contract does contain the clause")
        return SupporterOutput(position=Position.ABSENT, concedes=False, quotes=[],
                               argument="no passage of the contract fits the definition")
    evidence: list[str] = []
    non_verbatim = False
    for quote in task.candidate.quotes:
        loc = locate(quote, text)
        if loc is not None and cue_fit(clause, loc.passage, text) >= PARTIAL_FIT and is_verbatim(loc.passage, text):
            evidence.append(loc.passage)
            non_verbatim |= not loc.verbatim
    if not evidence:
        found = search(clause, text)
        if found is None:
            return SupporterOutput(position=Position.ABSENT, concedes=True, quotes=[],
                                   argument="nothing in the contract supports the extraction")
        return SupporterOutput(position=Position.PRESENT, concedes=False, quotes=list(found.quotes),
                               argument="the quoted passage is off, but the contract has the clause here")
    content_problems = any(f.problem and f.kind in _CONTENT_KINDS for f in task.findings)
    concedes = content_problems and non_verbatim and task.skeptic_claim is Position.PRESENT
    return SupporterOutput(position=Position.PRESENT, concedes=concedes, quotes=evidence,
                           argument=("the contract's own wording is quoted; the extraction departs from it" if concedes
                                     else "the quoted passages are in the contract and state the clause"))


def reextractor(task: ReExtractTask) -> ReExtractOutput:
    found = search(task.clause_type, task.contract_text)
    if found is None:
        return ReExtractOutput(present=False, quotes=[], rationale="no passage fits the clause type")
    return ReExtractOutput(present=True, quotes=list(found.quotes), rationale=f"best passage, cue fit {found.fit:.2f}")


def arbiter(task: ArbiterTask) -> ArbiterOutput:
    text, clause = task.contract_text, task.clause_type

    def best_fit(quotes: tuple[str, ...]) -> float:
        located = [locate(q, text) for q in quotes]
        return max((cue_fit(clause, loc.passage, text) for loc in located if loc is not None), default=0.0)

    if task.baseline.present:
        if best_fit(task.baseline.quotes) >= PARTIAL_FIT:
            return ArbiterOutput(decision=Position.PRESENT, quotes=list(task.baseline.quotes), keeps_baseline=True,
                                 strong_evidence=False, rationale="the baseline's passage is in the contract and "
                                                                  "shows the clause's cues; kept")
        if task.candidate.present and best_fit(task.candidate.quotes) >= PARTIAL_FIT:
            return ArbiterOutput(decision=Position.PRESENT, quotes=list(task.candidate.quotes), keeps_baseline=False,
                                 strong_evidence=True, rationale="the baseline quotes the wrong passage; the "
                                                                 "re-extracted one fits")
        return ArbiterOutput(decision=Position.ABSENT, quotes=[], keeps_baseline=False, strong_evidence=True,
                             rationale="the baseline's quote is not this clause or not in the contract")
    candidates = [task.candidate.quotes] if task.candidate.present else []
    found = search(clause, text)
    if found is not None:
        candidates.append(found.quotes)
    strong = [quotes for quotes in candidates if best_fit(quotes) >= FULL_FIT]
    if strong:
        return ArbiterOutput(decision=Position.PRESENT, quotes=list(strong[0]), keeps_baseline=False,
                             strong_evidence=True, rationale="a passage at the clause's full threshold")
    return ArbiterOutput(decision=Position.ABSENT, quotes=[], keeps_baseline=True, strong_evidence=False,
                         rationale="no strong evidence of the clause; the baseline stands")


def verifier(task: VerifierTask) -> VerifierOutput:
    text, clause = task.contract_text, task.clause_type
    evidence: list[tuple[float, str]] = []
    for quote in task.quotes_under_review:
        loc = locate(quote, text)
        if loc is not None and is_verbatim(loc.passage, text):
            evidence.append((cue_fit(clause, loc.passage, text), loc.passage))
    found = search(clause, text)
    if found is not None:
        evidence += [(cue_fit(clause, q, text), q) for q in found.quotes]
    fit, quote = max(evidence, key=lambda e: e[0], default=(0.0, ""))
    present = fit >= PARTIAL_FIT
    return VerifierOutput(present=present, quote=quote if present else "", definition_fit=present,
                          confidence=round(min(1.0, fit), 4),
                          rationale=f"best passage cue fit {fit:.2f}" if present else "no passage fits the clause")


def judge(task: DebateJudgeTask) -> DebateJudgeOutput:
    text = task.contract_text
    last = {e.role: e for e in task.transcript}
    if task.arbiter is not None:
        decision, reason = task.arbiter.decision, "the Arbiter's decision"
        offered = last[Role.ARBITER].quotes if Role.ARBITER in last else ()
    else:
        decision = task.consensus or (Position.PRESENT if task.candidate.present else Position.ABSENT)
        reason = "the debate's consensus"
        offered = ()
    if decision is Position.ABSENT:
        return DebateJudgeOutput(present=False, quotes=[], rationale=reason)
    if task.candidate.present:
        quotes = list(offered or task.candidate.quotes)
    else:
        support = last[Role.SUPPORTER].quotes if Role.SUPPORTER in last else ()
        quotes = list(offered or support or ((task.verifier.quote,) if task.verifier.quote else ()))
    repaired = []
    any_located = False
    for quote in quotes:
        loc = locate(quote, text)
        any_located |= loc is not None
        repaired.append(loc.passage if loc is not None and not loc.verbatim and is_verbatim(loc.passage, text)
                        else quote)
    if not task.verifier.present and not any_located:
        return DebateJudgeOutput(present=False, quotes=[], rationale="nothing quoted is in the contract and the "
                                                                     "Verifier finds nothing")
    return DebateJudgeOutput(present=bool(repaired), quotes=repaired,
                             rationale=f"{reason}; non-verbatim quotes replaced by their source passages")


def answer(task: Task) -> BaseModel:
    """The offline answer to one role task."""
    if isinstance(task, SkepticTask):
        return skeptic(task)
    if isinstance(task, SupporterTask):
        return supporter(task)
    if isinstance(task, ReExtractTask):
        return reextractor(task)
    if isinstance(task, ArbiterTask):
        return arbiter(task)
    if isinstance(task, VerifierTask):
        return verifier(task)
    if isinstance(task, DebateJudgeTask):
        return judge(task)
    raise ValueError(f"the offline debate model answers debate role tasks only, not {task.kind!r}")


class OfflineDebateModel:
    """The offline debate roles behind the ChatModel protocol."""

    provider = "offline"

    def __init__(self, model_id: str = "debate") -> None:
        self.model_id = model_id

    def request_params(self) -> dict[str, Any]:
        return {"algorithm": OFFLINE_DEBATE_VERSION}

    async def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.perf_counter()
        output = answer(request.task)
        content_ = output.model_dump(mode="json")
        raw = json.dumps(content_)
        prompt = "".join(m.content for m in request.messages)
        return ModelResponse(content=content_, raw_text=raw, latency_s=time.perf_counter() - started,
                             usage=Usage(input_tokens=approx_tokens(prompt), output_tokens=approx_tokens(raw)))
