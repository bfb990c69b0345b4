"""The provider-independent half of an LLM call: the context-window guard, the retry loop, one repair.

A provider adapter implements `send` (one round trip through its SDK with the provider's native
structured output) and `classify` (which of its SDK's exceptions carry an HTTP status), and may
implement `prepare` (work done once before a request's attempts, such as Gemini's context cache).
Everything else is here, identical for every provider: admission through the model's limits
(`limits.py`), a timeout per attempt, retries with backoff for the failures that may pass
(`failures.py`), strict parsing with one repair attempt (`schema.py`), and usage accounting.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec
from lhl_platform.domain.redaction import redact
from lhl_platform.providers.base import (
    FinishReason,
    Message,
    ModelRequest,
    ModelResponse,
    Usage,
)
from lhl_platform.providers.llm.batch import BatchError, BatchItem, BatchLimits, BatchState
from lhl_platform.providers.llm.credentials import CredentialError as CredentialError  # re-exported
from lhl_platform.providers.llm.failures import Failure, classify
from lhl_platform.providers.llm.failures import retry_after_seconds as retry_after_seconds  # re-exported
from lhl_platform.providers.llm.limits import Throttle, backoff_delay
from lhl_platform.providers.llm.schema import output_schema, parse_free_text, parse_structured, wire_schema

T = TypeVar("T")


@dataclass
class Reply:
    """One provider round trip, normalised."""

    text: str
    finish: FinishReason
    usage: Usage
    detail: str = ""


def add_usage(a: Usage, b: Usage) -> Usage:
    return Usage(input_tokens=a.input_tokens + b.input_tokens, output_tokens=a.output_tokens + b.output_tokens,
                 cached_tokens=a.cached_tokens + b.cached_tokens,
                 cache_write_tokens=a.cache_write_tokens + b.cache_write_tokens)


class LlmModel(ABC):
    """A ChatModel over a provider SDK."""

    provider: str
    default_context_window = 128_000
    client: Any
    validates_output = True  # a successful response's content has been validated against the task's schema

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.model_id = spec.model_id
        self.limits = spec.params
        self.throttle = Throttle(self.limits)
        self.context_window = spec.params.context_window or self.default_context_window
        self._rng = random.Random(hash(spec.name))

    @abstractmethod
    async def send(self, messages: tuple[Message, ...], schema: type[BaseModel] | None,
                   params: dict[str, Any]) -> Reply:
        """One round trip to the provider with its native structured output (none when `schema` is None: a
        free-text task)."""

    @abstractmethod
    def classify(self, exc: Exception) -> Failure | None:
        """The SDK's own errors that say what happened (an HTTP status above all); None leaves the exception
        to the provider-neutral classifier, which recognises transport failures of any HTTP client."""

    async def prepare(self, messages: tuple[Message, ...]) -> None:
        """Work to do once before a request's attempts (nothing by default)."""
        return None

    def request_params(self) -> dict[str, Any]:
        return self.spec.params.sampling()

    async def aclose(self) -> None:
        """Close the SDK's connection pool inside the event loop that used it."""
        await self.client.close()

    def failure(self, exc: BaseException) -> Failure:
        failure = classify(exc, self.classify)
        # A server may echo the key in its error body (401 "Incorrect API key provided: Bearer sk-..."):
        # the message is redacted here, before it becomes a recorded error, a log line or an exception.
        return replace(failure, message=redact(failure.message))

    def params_for(self, request: ModelRequest) -> dict[str, Any]:
        return {**self.spec.params.sampling(), **request.params}

    def output_bound(self, request: ModelRequest) -> int:
        """At most how many output tokens one round trip can be billed for (a spending limit reserves them):
        the request's output-token limit; adapters whose thinking comes on top of it add its budget."""
        return int(self.params_for(request).get("max_output_tokens") or 0)

    def too_long(self, request: ModelRequest) -> ModelResponse | None:
        """A recorded failure, without a call, when the request cannot fit the model's context window."""
        params = self.params_for(request)
        prompt_tokens = max(1, sum(len(m.content) for m in request.messages) // 4)  # approx_tokens, unjoined
        if prompt_tokens + int(params.get("max_output_tokens", 0)) <= self.context_window:
            return None
        return ModelResponse(finish_reason=FinishReason.LENGTH, latency_s=0.0, error=(
            f"prompt too long for {self.spec.model_id}: about {prompt_tokens:,} input tokens + "
            f"{params.get('max_output_tokens', 0):,} output exceed the {self.context_window:,}-token "
            "context window"))

    @staticmethod
    def settle(reply: Reply, schema: type[BaseModel], latency_s: float = 0.0, *,
               free_text: bool = False) -> tuple[ModelResponse, str]:
        """A reply as a response: a refusal or a truncation is a recorded failure; otherwise the text parsed
        strictly (a free-text task's text taken as its answer). Returns the response and, when the text did not
        parse, what was wrong with it."""
        if reply.finish is not FinishReason.STOP:
            what = "output truncated at the token limit" if reply.finish is FinishReason.LENGTH else "model refused"
            return ModelResponse(raw_text=reply.text, finish_reason=reply.finish, usage=reply.usage,
                                 latency_s=latency_s, error=f"{what}{': ' + reply.detail if reply.detail else ''}"), ""
        content, problem = (parse_free_text if free_text else parse_structured)(reply.text, schema)
        if content is None:
            return ModelResponse(raw_text=reply.text[:20_000], usage=reply.usage, finish_reason=FinishReason.ERROR,
                                 latency_s=latency_s, error=f"unparseable output: {problem}"), problem
        return ModelResponse(content=content, raw_text="", usage=reply.usage, latency_s=latency_s), ""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.perf_counter()
        refused = self.too_long(request)
        if refused is not None:
            return refused
        params = self.params_for(request)
        budget = max(1, sum(len(m.content) for m in request.messages) // 4) + int(params.get("max_output_tokens", 0))
        schema = output_schema(request)
        free_text = request.task.free_text
        await self.prepare(request.messages)
        reply, error = await self._send_with_retries(request.messages, wire_schema(request), params, budget)
        if reply is None:
            return ModelResponse(error=error, finish_reason=FinishReason.ERROR, latency_s=time.perf_counter() - started)
        response, problem = self.settle(reply, schema, time.perf_counter() - started, free_text=free_text)
        if not problem or free_text:  # free text has no format to repair: an empty answer is a failure
            return response
        # One repair attempt: show the model its reply and what was wrong with it.
        usage = reply.usage
        repair = (*request.messages, Message(role="assistant", content=reply.text[:20_000]),
                  Message(role="user", content=f"Your reply was rejected: {problem}. Reply again with JSON "
                                               "only, matching the required schema exactly."))
        second, error = await self._send_with_retries(repair, schema, params, budget)
        content = None
        if second is not None:
            usage = add_usage(usage, second.usage)
            if second.finish is FinishReason.STOP:
                content, problem = parse_structured(second.text, schema)
            else:
                problem = f"repair attempt ended with {second.finish.value}"
        else:
            problem = f"{problem}; repair attempt failed: {error}"
        if content is None:
            return ModelResponse(raw_text=reply.text[:20_000], usage=usage, finish_reason=FinishReason.ERROR,
                                 latency_s=time.perf_counter() - started,
                                 error=f"unparseable output after one repair attempt: {problem}")
        return ModelResponse(content=content, raw_text="", usage=usage, latency_s=time.perf_counter() - started)

    # --- batch APIs (audits that can wait): see batch.py --------------------------------------------------

    batch_limits = BatchLimits()

    @abstractmethod
    def batch_entry(self, request: ModelRequest) -> Any:
        """One request as the provider's batch API takes it, keyed by its request key."""

    def entry_size(self, entry: Any) -> int:
        """Bytes an entry adds to a batch (for the provider's size limit)."""
        return len(entry) if isinstance(entry, bytes | str) else len(json.dumps(entry, default=str))

    @abstractmethod
    async def submit_batch(self, entries: Sequence[Any]) -> str:
        """Create a batch job of these entries; returns its id. Only called for one provider's own entries."""

    @abstractmethod
    async def poll_batch(self, batch_id: str) -> BatchState:
        """The job's state and counts."""

    @abstractmethod
    async def batch_results(self, batch_id: str) -> dict[str, BatchItem]:
        """An ended batch's outcome per request key (a request the provider did not answer is absent)."""

    async def batch_operation(self, operation: Callable[[], Awaitable[T]], what: str) -> T:
        """A batch API call under the model's retry policy; raises BatchError when it cannot be done."""
        result, error = await self.with_retries(operation, 1)
        if result is None:
            raise BatchError(f"{what} failed: {error}")
        return result

    async def _send_with_retries(self, messages: tuple[Message, ...], schema: type[BaseModel] | None,
                                 params: dict[str, Any], budget: int) -> tuple[Reply | None, str]:
        return await self.with_retries(lambda: self.send(messages, schema, params), budget)

    async def with_retries(self, operation: Callable[[], Awaitable[T]], tokens: int) -> tuple[T | None, str]:
        """Run one provider operation under the model's retry policy: each attempt is admitted by the
        throttle (a concurrency slot, the rate limits, the circuit breaker) and
        bounded by `timeout_s`; a failure that may pass is retried after a jittered exponential backoff
        that never undercuts the server's Retry-After. Returns the result, or None and the last failure."""
        last, attempt, delay = "", 0, 0.0
        for attempt in range(self.limits.max_retries + 1):
            async with self.throttle.slots:
                await self.throttle.admit(tokens)
                deadline = asyncio.timeout(self.limits.timeout_s)  # no extra task per call, unlike wait_for
                try:
                    async with deadline:
                        result = await operation()
                    self.throttle.breaker.record(server_error=False)
                    return result, ""
                except Exception as exc:  # every provider error is classified, recorded and maybe retried
                    failure = (Failure(True, True, None, f"timed out after {self.limits.timeout_s:g}s")
                               if deadline.expired() else self.failure(exc))
                    self.throttle.breaker.record(server_error=failure.server_error)
                    last = failure.message
                    if not failure.retryable or attempt == self.limits.max_retries:
                        break
                    delay = backoff_delay(attempt, self.limits, failure.retry_after, self._rng)
            await asyncio.sleep(delay)
        return None, f"{last} (after {attempt + 1} attempt{'s' if attempt else ''})"
