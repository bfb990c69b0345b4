"""Validate a judge on the LexFlip suite: run any judge (offline or LLM) through the call engine exactly as an audit
does, on a seeded suite built from the active corpus's own annotated spans.

Two single-call stages, both recorded in `judge-validation.judge=<judge>`:
- the gate: one verdict per item (`judge.validation_item`), scored per family against what the edit implies;
- the LexFlip view: graded scores per (item, pair), the truth against its identical text, the edited text and an
  unrelated span (`judge.validation_score`); a similarity metric answers with its similarity, a binary judge with
  its verdict as 10 or 0, an LLM judge with a 0-10 rating averaged over k samples (k = 5 by default, as the seed
  does; each sample is a call of its own, recorded; an offline algorithm is deterministic, so one sample is its
  mean).
Both stages run on the generated suite and, apart, on every held-out set (`lexflip.heldout`): hand-written
rewrites of real CUAD clauses, fixed and hashed before any judge ran on them. The held-out sets decide: a judge is
validated only if it passes every one (`scoring.GATE`). The result names the families of the generated suite the
judge's rules were written from (`items.IN_SAMPLE`), reports its in-sample result, and never validates on it.
Every answer is an event keyed by the suite's digest and the item (and pair), so a rerun (after a crash, or to look
again) never asks a judge twice for one; a failed call is recorded under a key of its own, so the next run asks
again. The result is an event too (`judge.validated`), which the `judge_validation` stage and the report read.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from lhl_platform.calls.ledger import Answer, CallLedger, Unusable, Who, recorded_calls
from lhl_platform.calls.policy import CommitPolicy, stage_writer
from lhl_platform.calls.single import StageRun
from lhl_platform.corpus.store import active_corpus_id, load_corpus
from lhl_platform.domain.models import ModelSpec, Verdict
from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.events.payloads import ModelCall
from lhl_platform.factory import build_model
from lhl_platform.home import Home
from lhl_platform.judging.prompts import JUDGE_PROMPT_VERSION, judge_request, score_request
from lhl_platform.judging.task import ScoreOutput
from lhl_platform.judging.verdict import verdict_of
from lhl_platform.lexflip.events import (
    HeldOutFamily,
    HeldOutSummary,
    JudgeValidated,
    JudgeValidationItem,
    JudgeValidationScore,
    ValidationEvent,
)
from lhl_platform.lexflip.heldout import HELDOUT_FAMILIES, HeldOutSet, heldout_sets
from lhl_platform.lexflip.items import DEFAULT_PER_KIND, IN_SAMPLE, Suite, SuiteItem, build_suite
from lhl_platform.lexflip.scoring import (
    HeldOutResult,
    ItemScores,
    ValidationResult,
    held_out_result,
    score_suite,
    with_held_out,
)
from lhl_platform.providers.base import ChatModel, ModelRequest, close_model
from lhl_platform.registry import get_model
from lhl_platform.suites.contract import PlannedCall

Pair = Literal["identical", "edited", "unrelated"]
PAIRS: tuple[Pair, ...] = ("identical", "edited", "unrelated")
COMMIT = CommitPolicy(units=64)
DEFAULT_SAMPLES = 5  # graded scores averaged per (item, pair) for an LLM judge, as the seed does (k = 5)


def default_samples(spec: ModelSpec) -> int:
    """k: 5 for an LLM judge; 1 for an offline algorithm (deterministic: every sample would be the same)."""
    return 1 if spec.provider == "offline" else DEFAULT_SAMPLES


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


def unit_id(item_id: str, pair: str, sample: int) -> str:
    """A score's id: `item:pair` for the first sample (as before there were samples), `item:pair#s` after it."""
    return f"{item_id}:{pair}" if sample == 0 else f"{item_id}:{pair}#{sample}"


@dataclass(frozen=True)
class ScoreUnit:
    item: SuiteItem
    pair: Pair
    sample: int = 0

    @property
    def text(self) -> str:
        item = self.item
        return {"identical": item.truth[0], "edited": item.edited, "unrelated": item.unrelated}[self.pair]

    @property
    def id(self) -> str:
        return unit_id(self.item.item_id, self.pair, self.sample)


@dataclass
class ScoreStage:
    """The LexFlip view: a judge's graded score of each (item, pair) (`calls.single`)."""

    spec: ModelSpec
    model: ChatModel
    digest: str
    recorded: dict[str, float]  # unit id (with its sample) -> rating
    name: str = "judge-validation-score"
    policy: CommitPolicy = COMMIT
    errors: list[str] = field(default_factory=list)

    def skip(self, writer: StreamWriter, unit: ScoreUnit) -> bool:
        return unit.id in self.recorded

    def request(self, unit: ScoreUnit) -> ModelRequest:
        return score_request(self.model, unit.item.clause_type, unit.item.truth, unit.text, sample=unit.sample)

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
            request_key=call.request_key, rating=rating, error=error, usage=call.usage, sample=unit.sample))
        if rating is not None:
            self.recorded[unit.id] = rating
        else:
            self.errors.append(f"{unit.id}: {error}")

    def record(self, writer: StreamWriter, unit: ScoreUnit, call: ModelCall, rating: float) -> None:
        self._scored(writer, unit, call, rating, None)

    def reject(self, writer: StreamWriter, unit: ScoreUnit, answer: Answer[float], stage: str) -> None:
        self._scored(writer, unit, answer.call, None, answer.reason)


def _recorded(log: EventLog, stream: str, digest: str) -> tuple[dict[str, JudgeValidationItem], dict[str, float]]:
    """What this judge already answered on this suite: verdicts by item, ratings by (item, pair, sample)."""
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
                ratings[unit_id(score.item_id, score.pair, score.sample)] = score.rating
    return verdicts, ratings


@dataclass(frozen=True)
class _Run:
    """One set of items asked: its verdict stage, its score stage and the samples per (item, pair)."""

    verdicts: VerdictStage
    scores: ScoreStage
    items: tuple[SuiteItem, ...]
    samples: int


async def _ask(writer: StreamWriter, log: EventLog, stream: str, spec: ModelSpec, model: ChatModel,
               runs: tuple[_Run, ...]) -> None:
    durable = spec.provider != "offline"
    ledger = CallLedger(spec.name, recorded_calls(log, stream), writer.append)
    concurrency = spec.params.concurrency
    try:
        for run in runs:
            await StageRun(run.verdicts, writer, ledger, model).run(run.items, concurrency=concurrency,
                                                                    durable=durable)
            units = [ScoreUnit(item, pair, sample) for item in run.items for pair in PAIRS
                     for sample in range(run.samples)]
            await StageRun(run.scores, writer, ledger, model).run(units, concurrency=concurrency, durable=durable)
    finally:
        await close_model(model)


def _verdict(done: JudgeValidationItem | None) -> Verdict | None:
    if done is None or done.verdict is None or done.mismatch_type is None:
        return None
    return Verdict(verdict=done.verdict, mismatch_type=done.mismatch_type, reason=done.reason)


def mean_scores(item: SuiteItem, ratings: dict[str, float], samples: int) -> ItemScores | None:
    """An item's scores: per pair, the mean of its `samples` ratings; None unless every sample of every pair was
    answered (a failed sample is asked again on the next run)."""
    means: list[float] = []
    for pair in PAIRS:
        found = [ratings.get(unit_id(item.item_id, pair, s)) for s in range(samples)]
        if any(r is None for r in found):
            return None
        means.append(sum(float(r) for r in found if r is not None) / samples)
    identical, edited, unrelated = means
    return ItemScores(identical=identical, edited=edited, unrelated=unrelated)


@dataclass(frozen=True)
class _Prepared:
    """A validation laid out before anything is asked: the judge, k, the suite and held-out sets, what is recorded."""

    spec: ModelSpec
    model: ChatModel
    samples: int
    corpus_id: str
    suite: Suite
    held: tuple[HeldOutSet, ...]  # in file order
    runs: tuple[_Run, ...]
    stream: str


class _Unbuilt:
    """An LLM judge as a dry run renders its requests: provider, model id and sampling parameters, no SDK client, so
    counting what validating it would cost needs no API key. It answers nothing."""

    def __init__(self, spec: ModelSpec) -> None:
        self.spec, self.provider, self.model_id = spec, spec.provider, spec.model_id

    def request_params(self) -> dict[str, Any]:
        return self.spec.params.sampling()

    async def complete(self, request: ModelRequest) -> Any:
        raise RuntimeError("a dry run calls nothing")


def _prepare(home: Home, judge: str, seed: int, per_kind: int, samples: int | None,
             dry_run: bool = False) -> _Prepared:
    spec = get_model(home, judge)
    if spec.role != "judge":
        raise ValueError(f"{judge!r} is registered as an {spec.role}, not a judge")
    k = default_samples(spec) if samples is None else samples
    if k < 1:
        raise ValueError(f"samples must be at least 1, not {k}")
    corpus_id = active_corpus_id(home)
    suite = build_suite(load_corpus(home, corpus_id).oracle, seed=seed, per_kind=per_kind)
    held = tuple(heldout_sets())
    model: ChatModel = _Unbuilt(spec) if dry_run and spec.provider != "offline" else build_model(spec)
    stream = validation_stream(spec.name)
    sets = ((suite.digest(), suite.items), *((h.digest, h.items) for h in held))
    recorded = {d: _recorded(home.events, stream, d) for d, _ in sets}
    runs = tuple(_Run(VerdictStage(spec=spec, model=model, digest=d, recorded=recorded[d][0]),
                      ScoreStage(spec=spec, model=model, digest=d, recorded=recorded[d][1]), items, k)
                 for d, items in sets)
    return _Prepared(spec=spec, model=model, samples=k, corpus_id=corpus_id, suite=suite, held=held, runs=runs,
                     stream=stream)


def plan_validation(home: Home, judge: str, *, seed: int = 0, per_kind: int = DEFAULT_PER_KIND,
                    samples: int | None = None) -> list[PlannedCall]:
    """The calls `validate_judge` would make now, rendered as it renders them (what is recorded left out): one
    verdict per item and k graded scores per (item, pair), on the suite and every held-out set. Nothing is called."""
    prepared = _prepare(home, judge, seed, per_kind, samples, dry_run=True)
    spec = prepared.spec

    def text(request: ModelRequest) -> str:
        return "\n".join(m.content for m in request.messages)

    calls: list[PlannedCall] = []
    for run in prepared.runs:
        calls += [PlannedCall(run.verdicts.name, spec, text(run.verdicts.request(item))) for item in run.items
                  if item.item_id not in run.verdicts.recorded]
        calls += [PlannedCall(run.scores.name, spec, text(run.scores.request(unit))) for unit in (
            ScoreUnit(item, pair, s) for item in run.items for pair in PAIRS for s in range(run.samples))
            if unit.id not in run.scores.recorded]
    return calls


def validate_judge(home: Home, judge: str, *, seed: int = 0, per_kind: int = DEFAULT_PER_KIND,
                   samples: int | None = None) -> ValidationResult:
    """Run one registered judge on the LexFlip suite of the active corpus and, apart, on every held-out set, and
    record the result: validated (`passed`) only if it passes every held-out set (`scoring.GATE`). `samples`:
    graded scores averaged per (item, pair) (default: `default_samples`)."""
    prepared = _prepare(home, judge, seed, per_kind, samples)
    spec, model, k, suite, held, runs = (prepared.spec, prepared.model, prepared.samples, prepared.suite,
                                         prepared.held, prepared.runs)
    digest, stream = suite.digest(), prepared.stream
    version = _version(model)
    in_sample = IN_SAMPLE.get(version, ())
    with stage_writer(home.events, stream, COMMIT, durable=spec.provider != "offline") as writer:
        asyncio.run(_ask(writer, home.events, stream, spec, model, runs))
        suite_run, *held_runs = runs
        scored = _scored(suite_run, suite.items, spec.name, k, in_sample=in_sample)
        held_out = [held_out_result(h.header, _scored(run, h.items, spec.name, k, families=HELDOUT_FAMILIES))
                    for h, run in zip(held, held_runs, strict=True)]
        result = with_held_out(scored.model_copy(update={"samples": k}), held_out)
        families = {f.family.value: f.model_dump(mode="json", exclude={"family"}) for f in result.families}
        writer.append(ValidationEvent.VALIDATED, spec.name,
                      f"validated:{digest}:{version}:{':'.join(h.digest for h in held)}:k={k}:gate",
                      JudgeValidated(
                          judge=spec.name, judge_model_id=spec.model_id, judge_version=version,
                          corpus_id=prepared.corpus_id, suite_version=suite.version, suite_digest=digest, seed=seed,
                          items=result.items, passed=result.passed, families=families,
                          in_sample=[f.value for f in in_sample], samples=k, gate=result.gate,
                          in_sample_passed=result.in_sample_passed,
                          held_out_sets=[held_out_summary(h) for h in result.held_out]))
    return result


def _scored(run: _Run, items: tuple[SuiteItem, ...], judge: str, k: int, **options: Any) -> ValidationResult:
    return score_suite(items, [_verdict(run.verdicts.recorded.get(i.item_id)) for i in items],
                       scores=[mean_scores(i, run.scores.recorded, k) for i in items], judge=judge, **options)


def held_out_summary(result: HeldOutResult) -> HeldOutSummary:
    return HeldOutSummary(set=result.set, sha256=result.sha256, self_built=result.self_built, items=result.items,
                          passed=result.passed, families=[HeldOutFamily(
                              family=f.family.value, items=f.items, decided=f.decided, undetermined=f.undetermined,
                              unanswered=f.unanswered, decided_share=f.decided_share, as_expected=f.as_expected,
                              accuracy_decided=f.accuracy_decided, right_mismatch=f.right_mismatch, passed=f.passed)
                              for f in result.families])


def _version(model: ChatModel) -> str:
    params = model.request_params()
    return str(params.get("algorithm") or f"{model.model_id}:{JUDGE_PROMPT_VERSION}")
