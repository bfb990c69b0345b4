"""Judges you can trust: validate a registered judge on the dissociation suite, and measure how far two
judges agree on the true positives both labelled.

Validation runs any judge (offline or LLM) through the provider layer exactly as an audit does, on a seeded
suite built from the active corpus's own annotated spans. Every item's verdict is an event keyed by the
suite and the item, so a rerun (after a crash, or to look again) never calls the judge twice for one item;
the summary is an event too, which the `judge_validation` asset and the report read.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from lhl_platform.calls.ledger import Answer, CallLedger, Who, recorded_calls
from lhl_platform.calls.policy import CommitPolicy, stage_writer
from lhl_platform.calls.single import StageRun
from lhl_platform.corpus.store import active_corpus_id, load_corpus
from lhl_platform.domain.models import ModelSpec, Verdict
from lhl_platform.events.log import EventLog, StreamWriter
from lhl_platform.events.payloads import ModelCall
from lhl_platform.factory import build_model
from lhl_platform.home import Home
from lhl_platform.judging import overlap
from lhl_platform.judging.agreement import AgreementResult, AgreementRow, agreement
from lhl_platform.judging.engine import verdict_of
from lhl_platform.judging.prompts import JUDGE_PROMPT_VERSION, judge_request
from lhl_platform.judging.validation import (
    DEFAULT_PER_KIND,
    SuiteItem,
    ValidationResult,
    build_suite,
    item_scores,
    score_suite,
)
from lhl_platform.lexflip.events import JudgeValidated, JudgeValidationItem, ValidationEvent
from lhl_platform.providers.base import ChatModel, ModelRequest, close_model
from lhl_platform.registry import get_judge
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ScopeRequest, check_names

ScoreFn = Callable[[tuple[str, ...], str], float]


def validation_stream(judge: str) -> str:
    return f"judge-validation.judge={judge}"


def _scorer(spec: ModelSpec) -> ScoreFn | None:
    """Judges that give a similarity score get LexFlip's discrimination and margin too."""
    return overlap.similarity if spec.provider == "offline" and spec.model_id == "overlap" else None


@dataclass
class ValidationStage:
    """A judge on the suite's items, one call each (`calls.single`). An item already labelled (by this judge, on
    this suite) is not asked again; a failed call is recorded under a key of its own, so the next run asks again."""

    spec: ModelSpec
    model: ChatModel
    digest: str
    recorded: dict[str, JudgeValidationItem]
    name: str = "judge-validation"
    policy: CommitPolicy = CommitPolicy(units=64)

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


async def _label(writer: StreamWriter, stream: str, log: EventLog, stage: ValidationStage,
                 items: tuple[SuiteItem, ...]) -> list[Verdict | None]:
    ledger = CallLedger(stage.spec.name, recorded_calls(log, stream), writer.append)
    try:
        await StageRun(stage, writer, ledger, stage.model).run(
            items, concurrency=stage.spec.params.concurrency, durable=stage.spec.provider != "offline")
    finally:
        await close_model(stage.model)
    verdicts: list[Verdict | None] = []
    for item in items:
        done = stage.recorded.get(item.item_id)
        ok = done is not None and done.verdict is not None and done.mismatch_type is not None
        verdicts.append(Verdict(verdict=done.verdict, mismatch_type=done.mismatch_type, reason=done.reason)
                        if ok and done and done.verdict and done.mismatch_type else None)
    return verdicts


def validate_judge(home: Home, judge: str, *, seed: int = 0, per_kind: int = DEFAULT_PER_KIND) -> ValidationResult:
    """Run one registered judge on the dissociation suite of the active corpus and record the result."""
    spec = get_judge(home, judge)
    corpus_id = active_corpus_id(home)
    suite = build_suite(load_corpus(home, corpus_id).oracle, seed=seed, per_kind=per_kind)
    digest = suite.digest()
    model = build_model(spec)
    stream = validation_stream(spec.name)
    recorded = {e.item_id: e for e in (ev.data_as(JudgeValidationItem) for ev in home.events.read(stream)
                                       if ev.type == ValidationEvent.ITEM)
                if e.suite_digest == digest and e.verdict is not None}
    stage = ValidationStage(spec=spec, model=model, digest=digest, recorded=recorded)
    with stage_writer(home.events, stream, stage.policy, durable=spec.provider != "offline") as writer:
        verdicts = asyncio.run(_label(writer, stream, home.events, stage, suite.items))
        scores = item_scores(suite.items, _scorer(spec))
        result = score_suite(suite, verdicts, scores=scores, judge=spec.name)
        families = {f.family.value: f.model_dump(mode="json", exclude={"family"}) for f in result.families}
        writer.append(ValidationEvent.VALIDATED, spec.name, f"validated:{digest}:{_version(model)}", JudgeValidated(
            judge=spec.name, judge_model_id=spec.model_id, judge_version=_version(model), corpus_id=corpus_id,
            suite_version=suite.version, suite_digest=digest, seed=seed, items=result.items, passed=result.passed,
            families=families))
    return result


def _version(model: ChatModel) -> str:
    params = model.request_params()
    return str(params.get("algorithm") or f"{model.model_id}:{JUDGE_PROMPT_VERSION}")


def judge_agreement(home: Home, a: str, b: str, request: ScopeRequest | None = None, *,
                    resamples: int = 2000, seed: int = 0) -> AgreementResult:
    """Agreement of judges A and B on the true positives in scope that both labelled."""
    for name in (a, b):
        get_judge(home, name)  # an unknown judge is an error naming it and the registered ones
    scope = (request or ScopeRequest()).model_copy(update={"judge": a})
    with read_warehouse(home, scope) as con:
        check_names(con)
        cursor = con.execute("""select model, run, contract_id, clause_type, verdict_a, mismatch_a, verdict_b,
                                       mismatch_b
                                from judge_pair_verdicts where judge_b = ?""", [b])
        names = [d[0] for d in cursor.description]
        rows = [AgreementRow(**dict(zip(names, row, strict=True))) for row in cursor.fetchall()]
    if not rows:
        raise LookupError(f"no true positive in scope was labelled by both {a!r} and {b!r}; "
                          f"judge one with the other first (`lhl audit --models M --judge {b}`)")
    return agreement(rows, resamples=resamples, seed=seed)
