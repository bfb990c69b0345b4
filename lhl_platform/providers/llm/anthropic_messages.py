"""Anthropic Messages API.

Structured output: a forced tool call whose input schema is our Pydantic schema. Prompt caching:
`cache_control` marks the instructions and the contract block, so the debate's and the judge's
repeated sends of the same contract are read from the cache (reported as cached tokens).
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec
from lhl_platform.providers.base import FinishReason, Message, Usage
from lhl_platform.providers.llm.base import LlmModel, Reply
from lhl_platform.providers.llm.credentials import api_key
from lhl_platform.providers.llm.failures import Failure, http_failure, transport_failure
from lhl_platform.providers.llm.schema import strict_json_schema

TOOL = "submit_answer"
_EPHEMERAL = {"type": "ephemeral"}


class AnthropicModel(LlmModel):
    provider = "anthropic"
    default_context_window = 200_000

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        self.client = anthropic.AsyncAnthropic(api_key=api_key(spec, ("ANTHROPIC_API_KEY",)), base_url=spec.base_url,
                                               max_retries=0, timeout=self.limits.timeout_s)

    async def send(self, messages: tuple[Message, ...], schema: type[BaseModel], params: dict[str, Any]) -> Reply:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        turns: list[dict[str, Any]] = []
        for i, m in enumerate(m for m in messages if m.role != "system"):
            block: dict[str, Any] = {"type": "text", "text": m.content}
            if i == 0:
                block["cache_control"] = _EPHEMERAL  # the contract: re-sent by the judge and the debate
            turns.append({"role": m.role, "content": [block]})
        # This SDK generation no longer takes sampling arguments directly; they travel in the body.
        sampling = {k: params[k] for k in ("temperature", "top_p") if k in params}
        kwargs: dict[str, Any] = {
            "model": self.model_id, "max_tokens": int(params["max_output_tokens"]), "messages": turns,
            "system": [{"type": "text", "text": system, "cache_control": _EPHEMERAL}],
            "tools": [{"name": TOOL, "description": "Submit the answer in the required structure.",
                       "input_schema": strict_json_schema(schema)}],
            "tool_choice": {"type": "tool", "name": TOOL}, "extra_body": sampling}
        response = await self.client.messages.create(**kwargs)
        u = response.usage
        cache_read = u.cache_read_input_tokens or 0
        tokens = Usage(input_tokens=u.input_tokens + cache_read + (u.cache_creation_input_tokens or 0),
                       output_tokens=u.output_tokens, cached_tokens=cache_read)
        text = next((json.dumps(b.input) for b in response.content if b.type == "tool_use"), "")
        if not text:
            text = "".join(getattr(b, "text", "") for b in response.content)
        if response.stop_reason == "max_tokens":
            return Reply(text=text, finish=FinishReason.LENGTH, usage=tokens)
        if response.stop_reason == "refusal":
            return Reply(text=text, finish=FinishReason.REFUSAL, usage=tokens, detail=text[:300])
        return Reply(text=text, finish=FinishReason.STOP, usage=tokens)

    def classify(self, exc: Exception) -> Failure | None:
        if isinstance(exc, anthropic.APIStatusError):
            failure = http_failure(exc.status_code, exc.response.headers, exc.message)
            if exc.status_code == 529:  # Anthropic's "overloaded"
                return Failure(True, True, failure.retry_after, f"overloaded (529): {exc.message}")
            return failure
        if isinstance(exc, anthropic.APIConnectionError):  # timeouts included; the HTTP client's error is chained
            return transport_failure(exc) or http_failure(None, None, str(exc))
        return None
