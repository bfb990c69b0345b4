"""Anthropic Messages API.

Structured output: a forced tool call whose input schema is our Pydantic schema. Prompt caching:
`cache_control` marks the instructions and the contract block, so the debate's and the judge's
repeated sends of the same contract are read from the cache (reported as cached tokens).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import anthropic
from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec
from lhl_platform.domain.params import THINKING_BUDGET_TOKENS
from lhl_platform.providers.base import FinishReason, Message, ModelRequest, Usage
from lhl_platform.providers.llm.base import LlmModel, Reply
from lhl_platform.providers.llm.batch import BatchItem, BatchLimits, BatchState
from lhl_platform.providers.llm.credentials import api_key
from lhl_platform.providers.llm.failures import Failure, http_failure, transport_failure
from lhl_platform.providers.llm.schema import strict_json_schema, wire_schema

TOOL = "submit_answer"
_EPHEMERAL = {"type": "ephemeral"}


class AnthropicModel(LlmModel):
    provider = "anthropic"
    default_context_window = 200_000

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        self.client = anthropic.AsyncAnthropic(api_key=api_key(spec, ("ANTHROPIC_API_KEY",)), base_url=spec.base_url,
                                               max_retries=0, timeout=self.limits.timeout_s)

    def message_params(self, messages: tuple[Message, ...], schema: type[BaseModel] | None,
                       params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """A Messages API request: the SDK's arguments, and the sampling parameters (which this SDK
        generation takes in the body, not as arguments). A free-text task (`schema` None) gets no tool."""
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        turns: list[dict[str, Any]] = []
        for i, m in enumerate(m for m in messages if m.role != "system"):
            block: dict[str, Any] = {"type": "text", "text": m.content}
            if i == 0:
                block["cache_control"] = _EPHEMERAL  # the contract: re-sent by the judge and the debate
            turns.append({"role": m.role, "content": [block]})
        sampling: dict[str, Any] = {k: params[k] for k in ("temperature", "top_p") if k in params}
        kwargs: dict[str, Any] = {
            "model": self.model_id, "max_tokens": int(params["max_output_tokens"]), "messages": turns,
            "system": [{"type": "text", "text": system, "cache_control": _EPHEMERAL}]}
        if schema is not None:
            kwargs.update(tools=[{"name": TOOL, "description": "Submit the answer in the required structure.",
                                  "input_schema": strict_json_schema(schema)}],
                          tool_choice={"type": "tool", "name": TOOL})
        effort = params.get("reasoning_effort")
        if effort == "none":
            kwargs["thinking"] = {"type": "disabled"}
        elif effort is not None:
            # Extended thinking: the budget comes on top of the answer's own limit (thinking counts toward
            # max_tokens). The API refuses a forced tool choice and any temperature or top_p with thinking on,
            # so the tool is offered (the reply's text is parsed if the model answers without it).
            budget = THINKING_BUDGET_TOKENS[effort]
            kwargs.update(thinking={"type": "enabled", "budget_tokens": budget},
                          max_tokens=int(params["max_output_tokens"]) + budget)
            if schema is not None:
                kwargs["tool_choice"] = {"type": "auto"}
            sampling = {}
        return kwargs, sampling

    async def send(self, messages: tuple[Message, ...], schema: type[BaseModel] | None,
                   params: dict[str, Any]) -> Reply:
        kwargs, sampling = self.message_params(messages, schema, params)
        response = await self.client.messages.create(**kwargs, extra_body=sampling)
        return message_reply(response)

    # --- Message Batches ------------------------------------------------------------------------------

    batch_limits = BatchLimits(max_requests=100_000, max_bytes=200 * 2**20)

    def batch_entry(self, request: ModelRequest) -> dict[str, Any]:
        kwargs, sampling = self.message_params(request.messages, wire_schema(request), self.params_for(request))
        return {"custom_id": request.key(), "params": {**kwargs, **sampling}}

    async def submit_batch(self, entries: Sequence[Any]) -> str:
        batch = await self.batch_operation(lambda: self.client.messages.batches.create(requests=list(entries)),
                                           "creating the message batch")
        return str(batch.id)

    async def poll_batch(self, batch_id: str) -> BatchState:
        batch = await self.batch_operation(lambda: self.client.messages.batches.retrieve(batch_id),
                                           f"reading message batch {batch_id}")
        c = batch.request_counts
        total = c.processing + c.succeeded + c.errored + c.canceled + c.expired
        return BatchState(status=batch.processing_status, ended=batch.processing_status == "ended", total=total,
                          done=total - c.processing, failed=c.errored + c.canceled + c.expired)

    async def batch_results(self, batch_id: str) -> dict[str, BatchItem]:
        async def read() -> dict[str, BatchItem]:
            out: dict[str, BatchItem] = {}
            decoder = await self.client.messages.batches.results(batch_id)
            async for row in decoder:
                result = row.result
                if result.type == "succeeded":
                    out[row.custom_id] = BatchItem(reply=message_reply(result.message))
                elif result.type == "errored":
                    error = result.error.error
                    out[row.custom_id] = BatchItem(error=f"batch request errored ({error.type}): {error.message}"[:500])
                else:
                    out[row.custom_id] = BatchItem(error=f"batch request {result.type}")
            return out

        return await self.batch_operation(read, f"downloading the results of message batch {batch_id}")

    def output_bound(self, request: ModelRequest) -> int:
        """Extended thinking's budget comes on top of the answer's own limit (see `_kwargs`)."""
        params = self.params_for(request)
        effort = params.get("reasoning_effort")
        extra = THINKING_BUDGET_TOKENS[effort] if effort not in (None, "none") else 0
        return int(params["max_output_tokens"]) + extra

    def classify(self, exc: Exception) -> Failure | None:
        if isinstance(exc, anthropic.APIStatusError):
            failure = http_failure(exc.status_code, exc.response.headers, exc.message)
            if exc.status_code == 529:  # Anthropic's "overloaded"
                return Failure(True, True, failure.retry_after, f"overloaded (529): {exc.message}")
            return failure
        if isinstance(exc, anthropic.APIConnectionError):  # timeouts included; the HTTP client's error is chained
            return transport_failure(exc) or http_failure(None, None, str(exc))
        return None


def anthropic_usage(u: Any) -> Usage:
    """Anthropic reports the uncached input, the input read from the cache and the input written to it
    separately; `Usage.input_tokens` is their sum, with the cache reads and writes named."""
    cache_read = getattr(u, "cache_read_input_tokens", None) or 0
    cache_write = getattr(u, "cache_creation_input_tokens", None) or 0
    return Usage(input_tokens=(u.input_tokens or 0) + cache_read + cache_write, output_tokens=u.output_tokens or 0,
                 cached_tokens=cache_read, cache_write_tokens=cache_write)


def message_reply(response: Any) -> Reply:
    """A Messages API response (a `Message`), normalised (interactive calls and batch results alike)."""
    tokens = anthropic_usage(response.usage)
    text = next((json.dumps(b.input) for b in response.content if b.type == "tool_use"), "")
    if not text:
        text = "".join(getattr(b, "text", "") for b in response.content)
    if response.stop_reason == "max_tokens":
        return Reply(text=text, finish=FinishReason.LENGTH, usage=tokens)
    if response.stop_reason == "refusal":
        return Reply(text=text, finish=FinishReason.REFUSAL, usage=tokens, detail=text[:300])
    return Reply(text=text, finish=FinishReason.STOP, usage=tokens)
