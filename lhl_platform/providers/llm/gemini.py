"""Google Gemini through the google-genai SDK.

Structured output: `response_mime_type=application/json` with our schema as `response_json_schema`.
Prompt caching: Gemini 2.5+ caches repeated prefixes implicitly (instructions first, contract after).
With `params.context_cache_ttl_s` set, the instructions are also put in an explicit context cache once
per model session and every call refers to it (Gemini bills cached tokens at a discount, plus storage);
if the cache cannot be created (too short for the model's minimum, or unsupported) the calls carry
the instructions themselves. Cached tokens come back in `usage_metadata.cached_content_token_count`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from google import genai
from google.genai import errors, types
from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec
from lhl_platform.providers.base import FinishReason, Message, Usage
from lhl_platform.providers.llm.base import Failure, LlmModel, Reply, api_key, http_failure, strict_json_schema

_REFUSALS = {"SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY", "LANGUAGE"}


class GeminiModel(LlmModel):
    provider = "gemini"
    default_context_window = 1_048_576

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        options = types.HttpOptions(base_url=spec.base_url, timeout=int(self.limits.timeout_s * 1000))
        self.client = genai.Client(api_key=api_key(spec, ("GEMINI_API_KEY", "GOOGLE_API_KEY")), http_options=options)
        self.cache_ttl_s = spec.params.context_cache_ttl_s
        self.caches: dict[str, str | None] = {}  # system text -> cache name (None: could not be cached)
        self.cache_lock = asyncio.Lock()
        self.cache_errors: list[str] = []

    async def _cache_for(self, system: str) -> str | None:
        """The explicit context cache holding these instructions, created on first use."""
        if not self.cache_ttl_s:
            return None
        async with self.cache_lock:
            if system not in self.caches:
                try:
                    config = types.CreateCachedContentConfig(
                        system_instruction=system, ttl=f"{int(self.cache_ttl_s)}s", display_name="lhl-instructions")
                    cache = await self.client.aio.caches.create(model=self.model_id, config=config)
                    self.caches[system] = cache.name
                except Exception as exc:  # fall back to sending the instructions with every call
                    self.caches[system] = None
                    self.cache_errors.append(f"{type(exc).__name__}: {exc}"[:300])
            return self.caches[system]

    async def send(self, messages: tuple[Message, ...], schema: type[BaseModel], params: dict[str, Any]) -> Reply:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        contents = [types.Content(role="model" if m.role == "assistant" else "user", parts=[types.Part(text=m.content)])
                    for m in messages if m.role != "system"]
        cache = await self._cache_for(system)
        config = types.GenerateContentConfig(
            system_instruction=None if cache else system, cached_content=cache, temperature=params["temperature"],
            max_output_tokens=int(params["max_output_tokens"]), top_p=params.get("top_p"), seed=params.get("seed"),
            response_mime_type="application/json", response_json_schema=strict_json_schema(schema))
        response = await self.client.aio.models.generate_content(model=self.model_id, contents=contents,
                                                                 config=config)
        meta = response.usage_metadata
        tokens = Usage(input_tokens=(meta.prompt_token_count or 0) if meta else 0,
                       output_tokens=(meta.candidates_token_count or 0) if meta else 0,
                       cached_tokens=(meta.cached_content_token_count or 0) if meta else 0)
        feedback = response.prompt_feedback
        if feedback is not None and feedback.block_reason is not None:
            return Reply(text="", finish=FinishReason.REFUSAL, usage=tokens,
                         detail=f"prompt blocked: {feedback.block_reason}")
        candidate = response.candidates[0] if response.candidates else None
        reason = str(candidate.finish_reason.value if candidate and candidate.finish_reason else "STOP")
        text = "".join(p.text or "" for p in (candidate.content.parts or [])) if candidate and candidate.content else ""
        if reason == "MAX_TOKENS":
            return Reply(text=text, finish=FinishReason.LENGTH, usage=tokens)
        if reason in _REFUSALS:
            return Reply(text=text, finish=FinishReason.REFUSAL, usage=tokens, detail=f"finish reason {reason}")
        return Reply(text=text, finish=FinishReason.STOP, usage=tokens)

    async def aclose(self) -> None:
        await self.client.aio.aclose()

    def classify(self, exc: Exception) -> Failure:
        if isinstance(exc, errors.APIError):
            headers = getattr(getattr(exc, "response", None), "headers", None)
            return http_failure(exc.code, headers, exc.message or str(exc))
        if isinstance(exc, httpx.TimeoutException):
            return Failure(True, True, None, "request timed out")
        if isinstance(exc, httpx.TransportError):
            return http_failure(None, None, str(exc))
        return Failure(False, False, None, f"{type(exc).__name__}: {exc}")
