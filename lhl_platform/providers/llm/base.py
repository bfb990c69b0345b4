"""The provider-independent half of an LLM call: limits, retries, timeouts, parsing with one repair.

A provider adapter only implements `send` (one HTTP round trip through its SDK) and `classify`
(what an SDK exception means). Everything else (context-window guard, throttling, retry with
backoff that honours Retry-After, circuit breaker, strict parsing of the structured output with one
repair attempt, usage accounting) is here, identical for every provider.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import random
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from lhl_platform.domain.models import ModelSpec
from lhl_platform.providers.base import (
    FinishReason,
    Message,
    ModelRequest,
    ModelResponse,
    Usage,
    approx_tokens,
)
from lhl_platform.providers.llm.limits import Throttle, backoff_delay


class CredentialError(ValueError):
    pass


@dataclass
class Reply:
    """One provider round trip, normalised."""

    text: str
    finish: FinishReason
    usage: Usage
    detail: str = ""


@dataclass
class Failure:
    retryable: bool
    server_error: bool
    retry_after: float | None
    message: str


def output_schema(request: ModelRequest) -> type[BaseModel]:
    schema: type[BaseModel] = request.task.output
    return schema


@functools.cache
def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema made strict: every property required, no additional properties, no defaults."""

    def tighten(node: Any) -> Any:
        if isinstance(node, dict):
            node = {k: tighten(v) for k, v in node.items() if k not in ("default", "title")}
            if node.get("type") == "object" and "properties" in node:
                node["required"] = list(node["properties"])
                node["additionalProperties"] = False
            return node
        if isinstance(node, list):
            return [tighten(v) for v in node]
        return node

    schema: dict[str, Any] = tighten(model.model_json_schema())
    return schema


def api_key(spec: ModelSpec, default_env: tuple[str, ...], required: bool = True) -> str | None:
    """The key from the environment only: `params.api_key_env` names the variable, else the provider's."""
    names = (spec.params.api_key_env,) if spec.params.api_key_env else default_env
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    if required:
        raise CredentialError(f"model {spec.name!r} needs an API key: set {' or '.join(names)} in the environment")
    return None


def _parse(text: str, schema: type[BaseModel]) -> tuple[dict[str, Any] | None, str]:
    cleaned = text.strip()
    if cleaned.startswith("```"):  # some OpenAI-compatible servers wrap JSON in a code fence
        cleaned = cleaned.strip("`").removeprefix("json").strip()
    try:
        return schema.model_validate_json(cleaned).model_dump(mode="json"), ""
    except ValidationError as exc:
        if exc.errors()[0]["type"] == "json_invalid":
            try:
                json.loads(cleaned)
            except json.JSONDecodeError as bad:
                return None, f"not valid JSON ({bad.msg} at character {bad.pos})"
        first = exc.errors()[0]
        return None, f"JSON does not match the schema at {'.'.join(map(str, first['loc'])) or 'top'}: {first['msg']}"


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
    def classify(self, exc: Exception) -> Failure:
        """Interpret an SDK exception."""

    def request_params(self) -> dict[str, Any]:
        return self.spec.params.sampling()

    async def aclose(self) -> None:
        """Close the SDK's connection pool inside the event loop that used it."""
        await self.client.close()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.perf_counter()
        params = {**self.spec.params.sampling(), **request.params}
        prompt_tokens = approx_tokens("".join(m.content for m in request.messages))
        budget = prompt_tokens + int(params.get("max_output_tokens", 0))
        if budget > self.context_window:
            return ModelResponse(finish_reason=FinishReason.LENGTH, latency_s=0.0, error=(
                f"prompt too long for {self.spec.model_id}: about {prompt_tokens:,} input tokens + "
                f"{params.get('max_output_tokens', 0):,} output exceed the {self.context_window:,}-token "
                "context window"))
        schema = output_schema(request)
        reply, error = await self._send_with_retries(request.messages, schema, params, budget)
        usage = reply.usage if reply else Usage()
        if reply is None:
            return ModelResponse(error=error, finish_reason=FinishReason.ERROR, latency_s=time.perf_counter() - started)
        if reply.finish is not FinishReason.STOP:
            what = "output truncated at the token limit" if reply.finish is FinishReason.LENGTH else "model refused"
            return ModelResponse(raw_text=reply.text, finish_reason=reply.finish, usage=usage,
                                 latency_s=time.perf_counter() - started,
                                 error=f"{what}{': ' + reply.detail if reply.detail else ''}")
        content, problem = _parse(reply.text, schema)
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
                    content, problem = _parse(second.text, schema)
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
        last = ""
        for attempt in range(self.limits.max_retries + 1):
            async with self.throttle.slots:
                await self.throttle.admit(budget)
                try:
                    async with asyncio.timeout(self.limits.timeout_s):  # no extra task per call, unlike wait_for
                        reply = await self.send(messages, schema, params)
                    self.throttle.breaker.record(server_error=False)
                    return reply, ""
                except Exception as exc:  # every provider error is classified, recorded and maybe retried
                    failure = (Failure(True, True, None, f"timed out after {self.limits.timeout_s:g}s")
                               if isinstance(exc, TimeoutError) else self.classify(exc))
                    self.throttle.breaker.record(server_error=failure.server_error)
                    last = failure.message
                    if not failure.retryable or attempt == self.limits.max_retries:
                        break
                    delay = backoff_delay(attempt, self.limits, failure.retry_after, self._rng)
            await asyncio.sleep(delay)
        return None, f"{last} (after {attempt + 1} attempt{'s' if attempt else ''})"


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds to wait from a Retry-After (or retry-after-ms) header, when the server sent one."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def http_failure(status: int | None, headers: Any, message: str) -> Failure:
    """The common interpretation of an HTTP error status."""
    if status == 429:
        return Failure(True, False, retry_after_seconds(headers), f"rate limited (429): {message}")
    if status is not None and status >= 500:
        return Failure(True, True, retry_after_seconds(headers), f"server error ({status}): {message}")
    if status in (408, 409):
        return Failure(True, False, retry_after_seconds(headers), f"HTTP {status}: {message}")
    if status is None:
        return Failure(True, True, None, f"connection error: {message}")
    return Failure(False, False, None, f"HTTP {status}: {message}")
