"""Validate a judge on the LexFlip suite: run any judge (offline or LLM) through the call engine exactly as an audit
does, on a seeded suite built from the active corpus's own annotated spans.

Two single-call stages, both recorded in `judge-validation.judge=<judge>`:
- the gate: one verdict per item (`judge.validation_item`), scored per family against what the edit implies;
- the LexFlip view: one graded score per (item, pair), the truth against its identical text, the edited text and an
  unrelated span (`judge.validation_score`); a similarity metric answers with its similarity, a binary judge with
  its verdict as 10 or 0, an LLM judge with a 0-10 rating.
Every answer is an event keyed by the suite's digest and the item (and pair), so a rerun (after a crash, or to look
again) never asks a judge twice for one; a failed call is recorded under a key of its own, so the next run asks
again. The result is an event too (`judge.validated`), which the `judge_validation` stage and the report read.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Literal

from lhl_platform.calls.ledger import Answer, CallLedger, Unusable, Who, recorded_calls
from lhl_platform.calls.policy import CommitPolicy, stage_writer
from lhl_platform.calls.single import StageRun
from lhl_platform.corpus.store import active_corpus_id, load_corpus
from lhl_platform.domain.models import ModelSpec, Verdict
from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.events.payloads import ModelCall
from lhl_platform.factory import build_model
from lhl_platform.home import Home
from lhl_platform.judging.engine import verdict_of
from lhl_platform.judging.prompts import JUDGE_PROMPT_VERSION, judge_request, score_request
from lhl_platform.judging.task import ScoreOutput
from lhl_platform.lexflip.events import JudgeValidated, JudgeValidationItem, JudgeValidationScore, ValidationEvent
from lhl_platform.lexflip.items import DEFAULT_PER_KIND, SuiteItem, build_suite
from lhl_platform.lexflip.scoring import ItemScores, ValidationResult, score_suite
from lhl_platform.providers.base import ChatModel, ModelRequest, close_model
from lhl_platform.registry import get_model

Pair = Literal["identical", "edited", "unrelated"]
PAIRS: tuple[Pair, ...] = ("identical", "edited", "unrelated")
COMMIT = CommitPolicy(units=64)


def validation_stream(judge: str) -> str:
    return f"judge-validation.judge={judge}"


@dataclass
class VerdictStage:
    """The gate: a judge's verdict on each item (`calls.single`)."""

    spec: ModelSpec
    model: ChatModel
    digest: str
    recorded: dict[str, JudgeValidationItem]
    name: str = "judge-validation"
    policy: CommitPolicy = COMMIT

    def skip(self, writer: StreamWriter, item: SuiteItem) -> bool:
        return item.item_id in self.recorded

    def request(self, item: SuiteItem) -> ModelRequest:
        return judge_request(self.model, item.clause_type, item.truth, item.edited)

    def who(self, item: SuiteItem) -> Who:
        return Who(stage=self.name, subject=item.item_id, system=self.spec.name, item=item.item_id)

    def parse(self, item: SuiteItem, call: ModelCall, validated: bool) -> Verdict:
        return verdict_of(call.content)

    def _labelled(self, writer: StreamWriter, item: SuiteItem, call: ModelCall, verdict: Verdict | None,
                  error: str | None) -> None:
        done = JudgeValidationItem(
            judge=self.spec.name, suite_digest=self.digest, item_id=item.item_id, family=item.family.value,
            kind=item.kind, request_key=call.request_key, verdict=verdict.verdict if verdict else None,
            mismatch_type=verdict.mismatch_type if verdict else None, reason=verdict.reason if verdict else "",
            error=error, usage=call.usage)
        key = (f"validation:{self.digest}:{item.item_id}" if verdict
               else f"validation-failed:{self.digest}:{item.item_id}:{uuid.uuid4().hex}")
        writer.append(ValidationEvent.ITEM, item.item_id, key, done)
        self.recorded[item.item_id] = done

    def record(self, writer: StreamWriter, item: SuiteItem, call: ModelCall, verdict: Verdict) -> None:
        self._labelled(writer, item, call, verdict, None)

    def reject(self, writer: StreamWriter, item: SuiteItem, answer: Answer[Verdict], stage: str) -> None:
        self._labelled(writer, item, answer.call, None, answer.reason)


@dataclass(frozen=True)
class ScoreUnit:
    item: SuiteItem
    pair: Pair

    @property
    def text(self) -> str:
        item = self.item
        return {"identical": item.truth[0], "edited": item.edited, "unrelated": item.unrelated}[self.pair]

    @property
    def id(self) -> str:
        return f"{self.item.item_id}:{self.pair}"


@dataclass
class ScoreStage:
    """The LexFlip view: a judge's graded score of each (item, pair) (`calls.single`)."""

    spec: ModelSpec
    model: ChatModel
    digest: str
    recorded: dict[str, float]  # unit id -> rating
    name: str = "judge-validation-score"
    policy: CommitPolicy = COMMIT
    errors: list[str] = field(default_factory=list)

    def skip(self, writer: StreamWriter, unit: ScoreUnit) -> bool:
        return unit.id in self.recorded

    def request(self, unit: ScoreUnit) -> ModelRequest:
        return score_request(self.model, unit.item.clause_type, unit.item.truth, unit.text)

    def who(self, unit: ScoreUnit) -> Who:
        return Who(stage=self.name, subject=unit.id, system=self.spec.name, item=unit.item.item_id)

    def parse(self, unit: ScoreUnit, call: ModelCall, validated: bool) -> float:
        try:
            return ScoreOutput.model_validate(call.content or {}).rating
        except ValueError as exc:
            raise Unusable(f"unparseable rating: {exc}") from None

    def _scored(self, writer: StreamWriter, unit: ScoreUnit, call: ModelCall, rating: float | None,
                error: str | None) -> None:
        key = (f"validation-score:{self.digest}:{unit.id}" if rating is not None
               else f"validation-score-failed:{self.digest}:{unit.id}:{uuid.uuid4().hex}")
        writer.append(ValidationEvent.SCORE, unit.id, key, JudgeValidationScore(
            judge=self.spec.name, suite_digest=self.digest, item_id=unit.item.item_id, pair=unit.pair,
            request_key=call.request_key, rating=rating, error=error, usage=call.usage))
        if rating is not None:
            self.recorded[unit.id] = rating
        else:
            self.errors.append(f"{unit.id}: {error}")

    def record(self, writer: StreamWriter, unit: ScoreUnit, call: ModelCall, rating: float) -> None:
        self._scored(writer, unit, call, rating, None)

    def reject(self, writer: StreamWriter, unit: ScoreUnit, answer: Answer[float], stage: str) -> None:
        self._scored(writer, unit, answer.call, None, answer.reason)


def _recorded(log: EventLog, stream: str, digest: str) -> tuple[dict[str, JudgeValidationItem], dict[str, float]]:
    """What this judge already answered on this suite: verdicts by item, ratings by (item, pair)."""
    verdicts: dict[str, JudgeValidationItem] = {}
    ratings: dict[str, float] = {}
    if not (log.root / stream).exists():
        return verdicts, ratings
    for event in log.read(stream):
        if event.type == ValidationEvent.ITEM:
            item = event.data_as(JudgeValidationItem)
            if item.suite_digest == digest and item.verdict is not None:
                verdicts[item.item_id] = item
        elif event.type == ValidationEvent.SCORE:
            score = event.data_as(JudgeValidationScore)
            if score.suite_digest == digest and score.rating is not None:
                ratings[f"{score.item_id}:{score.pair}"] = score.rating
    return verdicts, ratings


async def _ask(writer: StreamWriter, log: EventLog, stream: str, verdicts: VerdictStage, scores: ScoreStage,
               items: tuple[SuiteItem, ...]) -> None:
    durable = verdicts.spec.provider != "offline"
    ledger = CallLedger(verdicts.spec.name, recorded_calls(log, stream), writer.append)
    concurrency = verdicts.spec.params.concurrency
    try:
        await StageRun(verdicts, writer, ledger, verdicts.model).run(items, concurrency=concurrency, durable=durable)
        units = [ScoreUnit(item, pair) for item in items for pair in PAIRS]
        await StageRun(scores, writer, ledger, scores.model).run(units, concurrency=concurrency, durable=durable)
    finally:
        await close_model(verdicts.model)


def _verdict(done: JudgeValidationItem | None) -> Verdict | None:
    if done is None or done.verdict is None or done.mismatch_type is None:
        return None
    return Verdict(verdict=done.verdict, mismatch_type=done.mismatch_type, reason=done.reason)


def _scores(item: SuiteItem, ratings: dict[str, float]) -> ItemScores | None:
    found = [ratings.get(f"{item.item_id}:{pair}") for pair in PAIRS]
    if any(r is None for r in found):
        return None
    identical, edited, unrelated = (float(r) for r in found if r is not None)
    return ItemScores(identical=identical, edited=edited, unrelated=unrelated)


def validate_judge(home: Home, judge: str, *, seed: int = 0, per_kind: int = DEFAULT_PER_KIND) -> ValidationResult:
    """Run one registered judge on the LexFlip suite of the active corpus and record the result."""
    spec = get_model(home, judge)
    if spec.role != "judge":
        raise ValueError(f"{judge!r} is registered as an {spec.role}, not a judge")
    corpus_id = active_corpus_id(home)
    suite = build_suite(load_corpus(home, corpus_id).oracle, seed=seed, per_kind=per_kind)
    digest = suite.digest()
    model = build_model(spec)
    stream = validation_stream(spec.name)
    verdicts, ratings = _recorded(home.events, stream, digest)
    verdict_stage = VerdictStage(spec=spec, model=model, digest=digest, recorded=verdicts)
    score_stage = ScoreStage(spec=spec, model=model, digest=digest, recorded=ratings)
    with stage_writer(home.events, stream, COMMIT, durable=spec.provider != "offline") as writer:
        asyncio.run(_ask(writer, home.events, stream, verdict_stage, score_stage, suite.items))
        result = score_suite(suite, [_verdict(verdicts.get(i.item_id)) for i in suite.items],
                             scores=[_scores(i, ratings) for i in suite.items], judge=spec.name)
        families = {f.family.value: f.model_dump(mode="json", exclude={"family"}) for f in result.families}
        writer.append(ValidationEvent.VALIDATED, spec.name, f"validated:{digest}:{_version(model)}", JudgeValidated(
            judge=spec.name, judge_model_id=spec.model_id, judge_version=_version(model), corpus_id=corpus_id,
            suite_version=suite.version, suite_digest=digest, seed=seed, items=result.items, passed=result.passed,
            families=families))
    return result


def _version(model: ChatModel) -> str:
    params = model.request_params()
    return str(params.get("algorithm") or f"{model.model_id}:{JUDGE_PROMPT_VERSION}")
