"""Recorded calls by request key, and the one way a model call is made and recorded.

Every call of every stage is recorded as a `model.call` event (or `model.call_failed`) with who answered
(`model`, priced at its rates) and whose figures it belongs to (`stage`, `system`, `item`), so usage and cost
have one source. A call whose answer the stage cannot use is recorded as failed, never as reusable: a re-run
asks again. A request whose key is recorded as a successful call is answered from the record, so re-running or
resuming a stage repeats no completed call.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel

from lhl_platform.calls.budget import LimitRefused, UnknownCost, active_limit, input_bound
from lhl_platform.domain.models import ModelSpec, PriceOrigin
from lhl_platform.domain.redaction import redact
from lhl_platform.events.log import EventLog
from lhl_platform.events.payloads import EventType, ModelCall
from lhl_platform.progress import CallTally
from lhl_platform.providers.base import ChatModel, FinishReason, ModelRequest, ModelResponse, safe_complete
from lhl_platform.providers.prices import Pricing, pricing_for

T = TypeVar("T")
Recorder = Callable[[str, str, str, BaseModel], object]
"""Receives (event type, subject, idempotency key, payload): a writer's `append`, or anything shaped like it."""
RAW_TEXT_LIMIT = 20_000  # characters of an answer without structured content kept with its record


class Unusable(Exception):
    """An answer the stage cannot use (it does not fit the task's schema, say); `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


Parse = Callable[[ModelCall, bool], T]
"""Turns a call's content into what the stage records, or raises Unusable. The flag says whether the model
already validated the content against the task's schema (an LLM adapter parses strictly; a replay has not)."""


@dataclass(frozen=True)
class Who:
    """Whose figures a call belongs to: the stage that made it, its subject, and the system and item its usage
    is attributed to in reports (empty: the answering model, the subject)."""

    stage: str
    subject: str
    system: str = ""
    item: str = ""
    run: int | None = None  # the audit round, when it is not the request's (judges are asked at run 0)


@dataclass(frozen=True)
class Answer(Generic[T]):
    call: ModelCall
    output: T | None
    reused: bool
    failed: Literal["call", "parse"] | None = None
    reason: str = ""


def recorded_calls(log: EventLog, stream: str) -> dict[str, ModelCall]:
    """Successful calls already in a stream, by request key."""
    if not (log.root / stream).exists():
        return {}
    calls = (e.data_as(ModelCall) for e in log.read(stream) if e.type == EventType.MODEL_CALL)
    return {c.request_key: c for c in calls if c.error is None and c.content is not None}


def _failed_key(key: str, batch_id: str | None) -> str:
    """Each failure is its own event (a retry may fail again); drawn only on failure, uuid4 is not free."""
    return f"call_failed:{key}:{batch_id or uuid.uuid4().hex}"


def _ignore(type_: str, subject: str, key: str, payload: BaseModel) -> None:
    return None


_OFFLINE = PriceOrigin(source="offline")


def pricing_of(model: ChatModel) -> Pricing | None:
    """The pricing of the registered model behind a ChatModel (an LLM adapter's spec); None: an offline algorithm,
    which makes no paid call, or a model with no registration to price it by."""
    if model.provider == "offline":
        return None
    spec = getattr(model, "spec", None)
    return pricing_for(spec) if isinstance(spec, ModelSpec) else None


def worst_cost(model: ChatModel, pricing: Pricing | None, request: ModelRequest, *, batch: bool = False) -> float:
    """The most one request can cost (see `budget.py`); UnknownCost when the model's cost is unknown."""
    if model.provider == "offline":
        return 0.0
    if pricing is None or not pricing.known:
        what = pricing.describe() if pricing is not None else f"{model.provider} model {model.model_id!r} is unpriced"
        raise UnknownCost(f"a spending limit refuses a model of unknown cost: {what}; register its rates "
                          "(`lhl models add ... --input-price P --output-price P`)")
    bound = getattr(model, "output_bound", None)
    out = int(bound(request)) if callable(bound) else int(request.params.get("max_output_tokens") or 8192)
    n = input_bound(request)
    worst = pricing.worst(n, out, batch=batch)
    assert worst is not None
    if not request.task.free_text and not batch:  # one repair attempt: the request, its reply and the rejection
        repair = pricing.worst(n + out + 64, out, batch=batch)
        assert repair is not None
        worst += repair
    return worst


@dataclass
class CallLedger:
    """Answers requests from the recorded calls when it can, else calls the model and records the call.
    `fresh` counts the calls made now (a stage's summary, say); `reused` those answered from the record.
    Safe to share between the concurrent units of one event loop."""

    model_name: str
    recorded: dict[str, ModelCall] = field(default_factory=dict)
    record: Recorder = _ignore
    fresh: CallTally = field(default_factory=CallTally)
    reused: CallTally = field(default_factory=CallTally)
    pricing: Pricing | None = None  # the answering model's (set from the model on its first call)
    offline: bool = False

    def price_model(self, model: ChatModel) -> None:
        """Cost this ledger's calls at the rates of the registered model behind `model`."""
        self.offline = model.provider == "offline"
        self.pricing = pricing_of(model)

    async def ask(self, model: ChatModel, request: ModelRequest, who: Who, parse: Parse[T]) -> Answer[T]:
        key = request.key()
        call = self.recorded.get(key)
        if call is not None:
            self.reused.count(call.usage)
            try:
                return Answer(call, parse(call, False), reused=True)
            except Unusable as exc:
                return Answer(call, None, reused=True, failed="parse", reason=exc.reason)
        if self.pricing is None and not self.offline:
            self.price_model(model)
        limit = None if self.offline else active_limit()
        worst = 0.0
        if limit is not None:
            worst = worst_cost(model, self.pricing, request)
            if not await limit.reserve(worst):
                raise LimitRefused
        started = time.perf_counter()
        spent = 0.0
        try:
            response = await safe_complete(model, request)
            if not response.latency_s:
                response = response.model_copy(update={"latency_s": time.perf_counter() - started})
            answer = self.settle(request, response, who, parse,
                                 validated=getattr(model, "validates_output", False) is True)
            spent = answer.call.cost_usd or 0.0
            return answer
        finally:
            if limit is not None:
                limit.settle(worst, spent)

    def settle(self, request: ModelRequest, response: ModelResponse, who: Who, parse: Parse[T], *,
               validated: bool, batch_id: str | None = None) -> Answer[T]:
        """Record a call the model answered (interactively or in a batch job) and parse its answer."""
        key = request.key()
        call = self.call_record(request, response, who, batch_id)
        self.fresh.count(response.usage, call.cost_usd)
        if response.error is not None or response.finish_reason is not FinishReason.STOP:
            self.record(EventType.MODEL_CALL_FAILED, call.subject, _failed_key(key, batch_id), call)
            return Answer(call, None, reused=False, failed="call",
                          reason=response.error or f"finish reason {response.finish_reason.value}")
        try:
            output = parse(call, validated)
        except Unusable as exc:
            unusable = call.model_copy(update={"error": exc.reason,
                                               "raw_text": redact(response.raw_text[:RAW_TEXT_LIMIT])})
            self.record(EventType.MODEL_CALL_FAILED, call.subject, _failed_key(key, batch_id), unusable)
            return Answer(unusable, None, reused=False, failed="parse", reason=exc.reason)
        self.record(EventType.MODEL_CALL, call.subject, f"call:{key}", call)
        self.recorded[key] = call
        return Answer(call, output, reused=False)

    def call_record(self, request: ModelRequest, response: ModelResponse, who: Who,
                    batch_id: str | None = None) -> ModelCall:
        if self.offline or request.provider == "offline":
            cost: float | None = 0.0
            origin: PriceOrigin | None = _OFFLINE
        elif self.pricing is None:
            cost, origin = None, None
        else:
            cost, origin = self.pricing.cost(response.usage, batch=batch_id is not None), self.pricing.origin
        return ModelCall(
            request_key=request.key(), subject=who.subject, model=self.model_name, provider=request.provider,
            model_id=request.model_id, prompt_version=request.prompt_version, run=request.run, params=request.params,
            finish_reason=response.finish_reason.value, error=response.error, latency_s=round(response.latency_s, 6),
            usage=response.usage, content=response.content,
            raw_text=response.raw_text[:RAW_TEXT_LIMIT] if response.content is None else "", batch_id=batch_id,
            stage=who.stage, system=who.system, item=who.item, audit_run=who.run,
            cost_usd=None if cost is None else round(cost, 12), price=origin)
