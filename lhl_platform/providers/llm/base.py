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
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec
from lhl_platform.providers.base import (
    FinishReason,
    Message,
    ModelRequest,
    ModelResponse,
    Usage,
)
from lhl_platform.providers.llm.credentials import CredentialError as CredentialError  # re-exported
from lhl_platform.providers.llm.failures import Failure, classify
from lhl_platform.providers.llm.failures import retry_after_seconds as retry_after_seconds  # re-exported
from lhl_platform.providers.llm.limits import Throttle, backoff_delay
from lhl_platform.providers.llm.schema import output_schema, parse_structured

T = TypeVar("T")


@dataclass
class Reply:
    """One provider round trip, normalised."""

    text: str
    finish: FinishReason
    usage: Usage
    detail: str = ""


class LlmModel(ABC):
    """A ChatModel over a provider SDK."""

    provider: str
    default_context_window = 128_000
    client: Any

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.model_id = spec.model_id
        self.limits = spec.params
        self.throttle = Throttle(self.limits)
        self.context_window = spec.params.context_window or self.default_context_window
        self._rng = random.Random(hash(spec.name))

    @abstractmethod
    async def send(self, messages: tuple[Message, ...], schema: type[BaseModel], params: dict[str, Any]) -> Reply:
        """One round trip to the provider with its native structured output."""

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
        return classify(exc, self.classify)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.perf_counter()
        params = {**self.spec.params.sampling(), **request.params}
        prompt_tokens = max(1, sum(len(m.content) for m in request.messages) // 4)  # approx_tokens, unjoined
        budget = prompt_tokens + int(params.get("max_output_tokens", 0))
        if budget > self.context_window:
            return ModelResponse(finish_reason=FinishReason.LENGTH, latency_s=0.0, error=(
                f"prompt too long for {self.spec.model_id}: about {prompt_tokens:,} input tokens + "
                f"{params.get('max_output_tokens', 0):,} output exceed the {self.context_window:,}-token "
                "context window"))
        schema = output_schema(request)
        await self.prepare(request.messages)
        reply, error = await self._send_with_retries(request.messages, schema, params, budget)
        usage = reply.usage if reply else Usage()
        if reply is None:
            return ModelResponse(error=error, finish_reason=FinishReason.ERROR, latency_s=time.perf_counter() - started)
        if reply.finish is not FinishReason.STOP:
            what = "output truncated at the token limit" if reply.finish is FinishReason.LENGTH else "model refused"
            return ModelResponse(raw_text=reply.text, finish_reason=reply.finish, usage=usage,
                                 latency_s=time.perf_counter() - started,
                                 error=f"{what}{': ' + reply.detail if reply.detail else ''}")
        content, problem = parse_structured(reply.text, schema)
        if content is None:
            # One repair attempt: show the model its reply and what was wrong with it.
            repair = (*request.messages, Message(role="assistant", content=reply.text[:20_000]),
                      Message(role="user", content=f"Your reply was rejected: {problem}. Reply again with JSON "
                                                   "only, matching the required schema exactly."))
            second, error = await self._send_with_retries(repair, schema, params, budget)
            if second is not None:
                usage = Usage(input_tokens=usage.input_tokens + second.usage.input_tokens,
                              output_tokens=usage.output_tokens + second.usage.output_tokens,
                              cached_tokens=usage.cached_tokens + second.usage.cached_tokens)
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

    async def _send_with_retries(self, messages: tuple[Message, ...], schema: type[BaseModel],
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
