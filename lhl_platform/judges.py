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

from lhl_platform.corpus.store import active_corpus_id, load_corpus
from lhl_platform.domain.models import ModelSpec, Verdict
from lhl_platform.events.log import StreamWriter
from lhl_platform.events.payloads import EventType, JudgeValidated, JudgeValidationItem
from lhl_platform.factory import build_model
from lhl_platform.home import Home
from lhl_platform.judging import overlap
from lhl_platform.judging.agreement import AgreementResult, AgreementRow, agreement
from lhl_platform.judging.engine import parse_verdict
from lhl_platform.judging.prompts import JUDGE_PROMPT_VERSION, judge_messages
from lhl_platform.judging.validation import (
    DEFAULT_PER_KIND,
    SuiteItem,
    ValidationResult,
    build_suite,
    item_scores,
    score_suite,
)
from lhl_platform.providers.base import ChatModel, JudgeTask, ModelRequest, close_model, safe_complete
from lhl_platform.registry import get_model
from lhl_platform.warehouse.build import read_warehouse
from lhl_platform.warehouse.scope import ScopeRequest

ScoreFn = Callable[[tuple[str, ...], str], float]


def validation_stream(judge: str) -> str:
    return f"judge-validation.judge={judge}"


def _scorer(spec: ModelSpec) -> ScoreFn | None:
    """Judges that give a similarity score get LexFlip's discrimination and margin too."""
    return overlap.similarity if spec.provider == "offline" and spec.model_id == "overlap" else None


def _request(spec: ModelSpec, model: ChatModel, item: SuiteItem) -> ModelRequest:
    return ModelRequest(provider=spec.provider, model_id=spec.model_id, prompt_version=JUDGE_PROMPT_VERSION, run=0,
                        params=model.request_params(),
                        messages=judge_messages(item.clause_type, item.truth, item.edited),
                        task=JudgeTask(clause_type=item.clause_type, truth=item.truth, extracted=item.edited))


async def _label(writer: StreamWriter, spec: ModelSpec, model: ChatModel, digest: str, items: tuple[SuiteItem, ...],
                 recorded: dict[str, JudgeValidationItem]) -> list[Verdict | None]:
    gate = asyncio.Semaphore(spec.params.concurrency)

    async def one(item: SuiteItem) -> Verdict | None:
        done = recorded.get(item.item_id)
        if done is None:
            request = _request(spec, model, item)
            async with gate:
                response = await safe_complete(model, request)
            verdict, problem = parse_verdict(response)
            done = JudgeValidationItem(
                judge=spec.name, suite_digest=digest, item_id=item.item_id, family=item.family.value, kind=item.kind,
                request_key=request.key(), verdict=verdict.verdict if verdict else None,
                mismatch_type=verdict.mismatch_type if verdict else None, reason=verdict.reason if verdict else "",
                error=None if verdict else problem, usage=response.usage)
            # A failed call is not recorded under the item's key: the next run asks again.
            key = (f"validation:{digest}:{item.item_id}" if verdict
                   else f"validation-failed:{digest}:{item.item_id}:{uuid.uuid4().hex}")
            writer.append(EventType.JUDGE_VALIDATION_ITEM, item.item_id, key, done)
        if done.verdict is None or done.mismatch_type is None:
            return None
        return Verdict(verdict=done.verdict, mismatch_type=done.mismatch_type, reason=done.reason)

    try:
        return list(await asyncio.gather(*(one(i) for i in items)))
    finally:
        await close_model(model)


def validate_judge(home: Home, judge: str, *, seed: int = 0, per_kind: int = DEFAULT_PER_KIND) -> ValidationResult:
    """Run one registered judge on the dissociation suite of the active corpus and record the result."""
    spec = get_model(home, judge)
    if spec.role != "judge":
        raise ValueError(f"{judge!r} is registered as an {spec.role}, not a judge")
    corpus_id = active_corpus_id(home)
    suite = build_suite(load_corpus(home, corpus_id).oracle, seed=seed, per_kind=per_kind)
    digest = suite.digest()
    model = build_model(spec)
    stream = validation_stream(spec.name)
    recorded = {e.item_id: e for e in (ev.data_as(JudgeValidationItem) for ev in home.events.read(stream)
                                       if ev.type == EventType.JUDGE_VALIDATION_ITEM)
                if e.suite_digest == digest and e.verdict is not None}
    with home.events.writer(stream, flush_every=500, flush_seconds=1.0) as writer:
        verdicts = asyncio.run(_label(writer, spec, model, digest, suite.items, recorded))
        scores = item_scores(suite.items, _scorer(spec))
        result = score_suite(suite, verdicts, scores=scores, judge=spec.name)
        families = {f.family.value: f.model_dump(mode="json", exclude={"family"}) for f in result.families}
        writer.append(EventType.JUDGE_VALIDATED, spec.name, f"validated:{digest}:{_version(model)}", JudgeValidated(
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
        if get_model(home, name).role != "judge":
            raise ValueError(f"{name!r} is not a registered judge")
    scope = (request or ScopeRequest()).model_copy(update={"judge": a})
    with read_warehouse(home, scope) as con:
        cursor = con.execute("""select model, run, contract_id, clause_type, verdict_a, mismatch_a, verdict_b,
                                       mismatch_b
                                from judge_pair_verdicts where judge_b = ?""", [b])
        names = [d[0] for d in cursor.description]
        rows = [AgreementRow(**dict(zip(names, row, strict=True))) for row in cursor.fetchall()]
    if not rows:
        raise LookupError(f"no true positive in scope was labelled by both {a!r} and {b!r}; "
                          f"judge one with the other first (`lhl audit --models M --judge {b}`)")
    return agreement(rows, resamples=resamples, seed=seed)
