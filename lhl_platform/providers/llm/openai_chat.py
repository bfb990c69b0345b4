"""OpenAI Chat Completions, and any OpenAI-compatible server (vLLM, Ollama, llama.cpp, hosted APIs) via base_url.

Structured output: `response_format` with our Pydantic schema as a strict JSON schema. Prompt caching:
OpenAI caches the longest repeated prefix automatically, so messages put the fixed instructions and
definitions first and the contract last; cached tokens come back in `usage.prompt_tokens_details`.
"""

from __future__ import annotations

import json
from typing import Any

import openai
from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec
from lhl_platform.providers.base import FinishReason, Message, Usage
from lhl_platform.providers.llm.base import LlmModel, Reply
from lhl_platform.providers.llm.credentials import api_key
from lhl_platform.providers.llm.failures import Failure, http_failure, transport_failure
from lhl_platform.providers.llm.schema import strict_json_schema

_FINISH = {"stop": FinishReason.STOP, "length": FinishReason.LENGTH, "content_filter": FinishReason.REFUSAL}


class OpenAIChatModel(LlmModel):
    provider = "openai"
    default_context_window = 128_000

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        # A local OpenAI-compatible server usually needs no key; the hosted API always does.
        key = api_key(spec, ("OPENAI_API_KEY",), required=spec.base_url is None) or "no-key-needed"
        self.client = openai.AsyncOpenAI(api_key=key, base_url=spec.base_url, max_retries=0,
                                         timeout=self.limits.timeout_s)

    async def send(self, messages: tuple[Message, ...], schema: type[BaseModel], params: dict[str, Any]) -> Reply:
        extra: dict[str, Any] = {k: params[k] for k in ("top_p", "seed") if k in params}
        # max_completion_tokens is the current OpenAI name; compatible servers still expect max_tokens.
        limit_name = "max_tokens" if self.spec.base_url else "max_completion_tokens"
        extra[limit_name] = int(params["max_output_tokens"])
        body: dict[str, Any] = {
            "model": self.model_id, "temperature": params["temperature"],
            "response_format": {"type": "json_schema", "json_schema": {
                "name": schema.__name__, "schema": strict_json_schema(schema), "strict": True}}, **extra}
        # The SDK's generic POST (its documented route for raw bodies), read back as plain JSON:
        # `chat.completions.create` re-walks the request's types and builds typed models on every call,
        # which at 32-way concurrency costs more CPU than the rest of the call. The body is sent as bytes
        # whose messages reuse the JSON text the request key was computed from (a contract is escaped once).
        response: dict[str, Any] = await self.client.post("/chat/completions", content=chat_body(messages, body),
                                                          cast_to=dict,
                                                          options={"headers": {"Content-Type": "application/json"}})
        choice = (response.get("choices") or [{}])[0]
        message = choice.get("message") or {}
        usage = response.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        tokens = Usage(input_tokens=usage.get("prompt_tokens") or 0, output_tokens=usage.get("completion_tokens") or 0,
                       cached_tokens=details.get("cached_tokens") or 0)
        refusal = message.get("refusal")
        if refusal:
            return Reply(text=refusal, finish=FinishReason.REFUSAL, usage=tokens, detail=str(refusal)[:300])
        finish = _FINISH.get(choice.get("finish_reason") or "stop", FinishReason.STOP)
        return Reply(text=message.get("content") or "", finish=finish, usage=tokens)

    def classify(self, exc: Exception) -> Failure | None:
        if isinstance(exc, openai.APIStatusError):
            return http_failure(exc.status_code, exc.response.headers, exc.message)
        if isinstance(exc, openai.APIConnectionError):  # timeouts included; the HTTP client's error is chained
            return transport_failure(exc) or http_failure(None, None, str(exc))
        return None


def chat_body(messages: tuple[Message, ...], rest: dict[str, Any]) -> bytes:
    """A chat request body: `{"messages": [...], **rest}` as compact JSON bytes."""
    head = ",".join(m.json_object() for m in messages)
    tail = json.dumps(rest, ensure_ascii=False, separators=(",", ":"))
    return f'{{"messages":[{head}],{tail[1:]}'.encode()
