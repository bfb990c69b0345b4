"""Google Gemini through the google-genai SDK.

Structured output: `response_mime_type=application/json` with our schema as `response_json_schema`.
Prompt caching: Gemini 2.5+ caches repeated prefixes implicitly (instructions first, contract after).
With `params.context_cache_ttl_s` set, the instructions are also put in an explicit context cache once
per model session, before the first call that needs it, and every call refers to it (Gemini bills
cached tokens at a discount, plus storage). Creating the cache follows the same retry policy as a call
(a 429 or a 5xx is retried with backoff); if it still fails, or cannot succeed (too short for the
model's minimum, unsupported), the calls carry the instructions themselves and the reason is kept in
`cache_errors` for the partition to report. Cached tokens come back in
`usage_metadata.cached_content_token_count`.

The SDK's own retries are switched off (one attempt), so that this platform's retry loop is the only
one, whichever HTTP client the SDK sends through.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from google import genai
from google.genai import errors, types
from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec
from lhl_platform.domain.params import THINKING_BUDGET_TOKENS
from lhl_platform.providers.base import FinishReason, Message, ModelRequest, Usage, approx_tokens
from lhl_platform.providers.llm.base import LlmModel, Reply
from lhl_platform.providers.llm.batch import WHOLE_BATCH, BatchError, BatchItem, BatchLimits, BatchState
from lhl_platform.providers.llm.credentials import api_key
from lhl_platform.providers.llm.failures import Failure, http_failure
from lhl_platform.providers.llm.schema import strict_json_schema, wire_schema

MAX_THINKING_TOKENS = 32_768  # the largest thinking budget a Gemini model takes (2.5 Pro)

_ENDED = {"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED", "JOB_STATE_EXPIRED",
          "JOB_STATE_PARTIALLY_SUCCEEDED"}
_REFUSALS = {"SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY", "LANGUAGE"}


class GeminiModel(LlmModel):
    provider = "gemini"
    default_context_window = 1_048_576

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        options = types.HttpOptions(base_url=spec.base_url, timeout=int(self.limits.timeout_s * 1000),
                                    retry_options=types.HttpRetryOptions(attempts=1))
        self.client = genai.Client(api_key=api_key(spec, ("GEMINI_API_KEY", "GOOGLE_API_KEY")), http_options=options)
        self.cache_ttl_s = spec.params.context_cache_ttl_s
        self.caches: dict[str, str | None] = {}  # system text -> cache name (None: could not be cached)
        self.cache_lock = asyncio.Lock()
        # Why an explicit cache could not be created (after its retries): the calls went uncached.
        self.cache_errors: list[str] = []

    async def prepare(self, messages: tuple[Message, ...]) -> None:
        """Create the explicit context cache for these instructions on first use (once per model session)."""
        if not self.cache_ttl_s:
            return
        system = _system_text(messages)
        async with self.cache_lock:  # concurrent first calls wait for one creation and share its outcome
            if system in self.caches:
                return
            config = types.CreateCachedContentConfig(
                system_instruction=system, ttl=f"{int(self.cache_ttl_s)}s", display_name="lhl-instructions")
            cache, error = await self.with_retries(
                lambda: self.client.aio.caches.create(model=self.model_id, config=config), approx_tokens(system))
            self.caches[system] = cache.name if cache is not None and cache.name else None
            if self.caches[system] is None:
                reason = error or "the provider returned a cache without a name"
                self.cache_errors.append(f"context cache not created, calls carry the instructions: {reason}"[:500])

    def request_parts(self, messages: tuple[Message, ...], schema: type[BaseModel] | None, params: dict[str, Any],
                      cache: str | None = None) -> tuple[list[types.Content], types.GenerateContentConfig]:
        """A generateContent request: its contents and its config (instructions inline unless `cache` names
        an explicit context cache holding them)."""
        contents = [types.Content(role="model" if m.role == "assistant" else "user", parts=[types.Part(text=m.content)])
                    for m in messages if m.role != "system"]
        config = types.GenerateContentConfig(
            system_instruction=None if cache else _system_text(messages), cached_content=cache,
            temperature=params["temperature"], max_output_tokens=int(params["max_output_tokens"]),
            top_p=params.get("top_p"), seed=params.get("seed"),
            # a free-text task (`schema` None) is asked for plain text
            response_mime_type="application/json" if schema is not None else None,
            response_json_schema=strict_json_schema(schema) if schema is not None else None,
            thinking_config=thinking_config(self.model_id, params.get("reasoning_effort")))
        return contents, config

    async def send(self, messages: tuple[Message, ...], schema: type[BaseModel] | None,
                   params: dict[str, Any]) -> Reply:
        contents, config = self.request_parts(messages, schema, params, self.caches.get(_system_text(messages)))
        response = await self.client.aio.models.generate_content(model=self.model_id, contents=contents,
                                                                 config=config)
        return content_reply(response)

    # --- batch mode (inline requests) ---------------------------------------------------------------------

    # Inline requests travel in one call, which the API caps at 20 MB: larger audits are split.
    batch_limits = BatchLimits(max_requests=10_000, max_bytes=16 * 2**20)

    def batch_entry(self, request: ModelRequest) -> types.InlinedRequest:
        contents, config = self.request_parts(request.messages, wire_schema(request), self.params_for(request))
        return types.InlinedRequest(contents=contents, config=config, metadata={"key": request.key()})

    def entry_size(self, entry: Any) -> int:
        return sum(len(p.text or "") for c in entry.contents for p in (c.parts or [])) + len(
            str(entry.config.system_instruction or "")) + 2_000

    async def submit_batch(self, entries: Sequence[Any]) -> str:
        job = await self.batch_operation(
            lambda: self.client.aio.batches.create(model=self.model_id, src=list(entries),
                                                   config={"display_name": f"lhl {self.spec.name}"}),
            "creating the batch job")
        if not job.name:
            raise BatchError("the provider returned a batch job without a name")
        return str(job.name)

    async def poll_batch(self, batch_id: str) -> BatchState:
        job = await self.batch_operation(lambda: self.client.aio.batches.get(name=batch_id),
                                         f"reading batch job {batch_id}")
        state = str(job.state.value if job.state else "JOB_STATE_UNSPECIFIED")
        return BatchState(status=state, ended=state in _ENDED)

    async def batch_results(self, batch_id: str) -> dict[str, BatchItem]:
        job = await self.batch_operation(lambda: self.client.aio.batches.get(name=batch_id),
                                         f"reading batch job {batch_id}")
        responses = (job.dest.inlined_responses if job.dest else None) or []
        out: dict[str, BatchItem] = {}
        for item in responses:
            key = str((item.metadata or {}).get("key", ""))
            if item.response is not None:
                out[key] = BatchItem(reply=content_reply(item.response))
            else:
                error = item.error
                detail = f"{error.code}: {error.message}" if error is not None else "no response"
                out[key] = BatchItem(error=f"batch request failed ({detail})"[:500])
        if not out:
            state = str(job.state.value if job.state else "")
            detail = f": {job.error.message}" if job.error is not None and job.error.message else ""
            return {WHOLE_BATCH: BatchItem(error=f"batch job {state}{detail}"[:500])}
        return out

    async def aclose(self) -> None:
        await self.client.aio.aclose()

    def output_bound(self, request: ModelRequest) -> int:
        """Thinking tokens are billed as output: a budget of Gemini 2.5 on top of the answer's limit; a thinking
        level (Gemini 3) or the model's own dynamic thinking, at most the largest budget a Gemini model takes."""
        params = self.params_for(request)
        effort = params.get("reasoning_effort")
        if effort == "none":
            extra = 0
        elif effort is not None and self.model_id.startswith("gemini-2.5"):
            extra = THINKING_BUDGET_TOKENS[effort]
        else:
            extra = MAX_THINKING_TOKENS
        return int(params["max_output_tokens"]) + extra

    def classify(self, exc: Exception) -> Failure | None:
        if isinstance(exc, errors.APIError):
            headers = getattr(getattr(exc, "response", None), "headers", None)
            return http_failure(exc.code, headers, exc.message or str(exc))
        return None  # transport failures: recognised by the provider-neutral classifier, whatever the client


def thinking_config(model_id: str, effort: str | None) -> types.ThinkingConfig | None:
    """Reasoning effort in Gemini's terms: a thinking level from Gemini 3 on, a token budget for Gemini 2.5
    (which knows no levels; the API refuses both at once); "none" is a budget of 0 (thinking off)."""
    if effort is None:
        return None
    if effort == "none":
        return types.ThinkingConfig(thinking_budget=0)
    if model_id.startswith("gemini-2"):
        return types.ThinkingConfig(thinking_budget=THINKING_BUDGET_TOKENS[effort])
    return types.ThinkingConfig(thinking_level=types.ThinkingLevel(effort.upper()))


def _system_text(messages: tuple[Message, ...]) -> str:
    return "\n\n".join(m.content for m in messages if m.role == "system")


def content_reply(response: types.GenerateContentResponse) -> Reply:
    """A generateContent response, normalised (interactive calls and batch results alike)."""
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
