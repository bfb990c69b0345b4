"""OpenAI Chat Completions, and any OpenAI-compatible server (vLLM, Ollama, llama.cpp, hosted APIs) via base_url.

Interactive calls go through the SDK's HTTP client and headers with a body built here; the Batch API goes
through the SDK's `files` and `batches` resources.

Structured output: `response_format` with our Pydantic schema as a strict JSON schema (none for a free-text
task). Prompt caching: OpenAI caches the longest repeated prefix automatically, so messages put the fixed
instructions and definitions first and the contract last; cached tokens come back in
`usage.prompt_tokens_details`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import openai
from pydantic import BaseModel

from lhl_platform.domain.models import ModelSpec
from lhl_platform.providers.base import FinishReason, Message, ModelRequest, Usage
from lhl_platform.providers.llm.base import LlmModel, Reply
from lhl_platform.providers.llm.batch import WHOLE_BATCH, BatchItem, BatchLimits, BatchState
from lhl_platform.providers.llm.credentials import api_key
from lhl_platform.providers.llm.failures import Failure, http_failure, transport_failure
from lhl_platform.providers.llm.schema import strict_json_schema, wire_schema

_FINISH = {"stop": FinishReason.STOP, "length": FinishReason.LENGTH, "content_filter": FinishReason.REFUSAL}
_ENDED = {"completed", "failed", "expired", "cancelled"}
BATCH_ENDPOINT = "/v1/chat/completions"


class OpenAIChatModel(LlmModel):
    provider = "openai"
    default_context_window = 128_000

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        # A local OpenAI-compatible server usually needs no key; the hosted API always does.
        key = api_key(spec, ("OPENAI_API_KEY",), required=spec.base_url is None) or "no-key-needed"
        # The SDK's own HTTP client (its connection pool and defaults), shared by the SDK and the hot path.
        self.http = openai.DefaultAsyncHttpxClient(timeout=self.limits.timeout_s)
        self.client = openai.AsyncOpenAI(api_key=key, base_url=spec.base_url, max_retries=0,
                                         timeout=self.limits.timeout_s, http_client=self.http)
        self.chat_url = f"{self.client.base_url}chat/completions"
        headers = {**self.client.default_headers, **self.client.auth_headers, "Content-Type": "application/json"}
        self.chat_headers = {k: v for k, v in headers.items() if isinstance(v, str)}
        self._tails: dict[tuple[type[BaseModel] | None, str], str] = {}

    def body_fields(self, schema: type[BaseModel] | None, params: dict[str, Any]) -> dict[str, Any]:
        """Everything a chat-completion body holds besides the messages (no `response_format` for free text)."""
        extra: dict[str, Any] = {k: params[k] for k in ("top_p", "seed") if k in params}
        # max_completion_tokens is the current OpenAI name; compatible servers still expect max_tokens.
        limit_name = "max_tokens" if self.spec.base_url else "max_completion_tokens"
        extra[limit_name] = int(params["max_output_tokens"])
        sampling: dict[str, Any] = {"temperature": params["temperature"]}
        effort = params.get("reasoning_effort")
        if effort is not None:
            extra["reasoning_effort"] = effort
            if effort != "none":  # a reasoning model rejects any temperature or top_p but its default
                sampling = {}
                extra.pop("top_p", None)
        if schema is None:
            return {"model": self.model_id, **sampling, **extra}
        return {"model": self.model_id, **sampling,
                "response_format": {"type": "json_schema", "json_schema": {
                    "name": schema.__name__, "schema": strict_json_schema(schema), "strict": True}}, **extra}

    def body_tail(self, schema: type[BaseModel] | None, params: dict[str, Any]) -> str:
        """`body_fields` as JSON, encoded once per schema and parameters (the schema is the longest part)."""
        key = (schema, json.dumps(params, sort_keys=True, default=str))
        tail = self._tails.get(key)
        if tail is None:
            tail = self._tails[key] = json.dumps(self.body_fields(schema, params), ensure_ascii=False,
                                                 separators=(",", ":"))
        return tail

    async def send(self, messages: tuple[Message, ...], schema: type[BaseModel] | None,
                   params: dict[str, Any]) -> Reply:
        # Sent through the SDK's HTTP client with the SDK's headers, as bytes, and read back as plain JSON:
        # the SDK's request layer (`chat.completions.create` with its typed models, or even its generic
        # `post`) costs more CPU per call than everything else an audit does with the call at 32-way
        # concurrency. The body's messages reuse the JSON text the request key was computed from (a contract
        # is escaped once). An HTTP error becomes the SDK's own `APIStatusError`, so it is classified as before.
        response = await self.http.post(self.chat_url, content=chat_body(messages, self.body_tail(schema, params)),
                                        headers=self.chat_headers)
        if response.status_code >= 300:
            raise status_error(response)
        return chat_reply(json.loads(response.content))

    # --- the Batch API: a JSONL file of chat-completion requests, one batch over it -----------------------

    batch_limits = BatchLimits(max_requests=50_000, max_bytes=190 * 2**20)

    def batch_entry(self, request: ModelRequest) -> bytes:
        body = chat_body(request.messages, self.body_fields(wire_schema(request), self.params_for(request)))
        return (b'{"custom_id":"' + request.key().encode() + b'","method":"POST","url":"' + BATCH_ENDPOINT.encode()
                + b'","body":' + body + b"}\n")

    async def submit_batch(self, entries: Sequence[Any]) -> str:
        data = b"".join(entries)
        file = await self.batch_operation(
            lambda: self.client.files.create(file=("requests.jsonl", data, "application/jsonl"), purpose="batch"),
            "uploading the batch's requests")
        batch = await self.batch_operation(
            lambda: self.client.batches.create(input_file_id=file.id, endpoint=BATCH_ENDPOINT,
                                               completion_window="24h", metadata={"lhl_model": self.spec.name}),
            "creating the batch")
        return str(batch.id)

    async def poll_batch(self, batch_id: str) -> BatchState:
        batch = await self.batch_operation(lambda: self.client.batches.retrieve(batch_id), f"reading batch {batch_id}")
        counts = batch.request_counts
        return BatchState(status=batch.status, ended=batch.status in _ENDED,
                          total=counts.total if counts else None,
                          done=(counts.completed + counts.failed) if counts else None,
                          failed=counts.failed if counts else None)

    async def _download(self, file_id: str, batch_id: str) -> bytes:
        content = await self.batch_operation(lambda: self.client.files.content(file_id),
                                             f"downloading the results of batch {batch_id}")
        return bytes(content.content)

    async def batch_results(self, batch_id: str) -> dict[str, BatchItem]:
        batch = await self.batch_operation(lambda: self.client.batches.retrieve(batch_id), f"reading batch {batch_id}")
        out: dict[str, BatchItem] = {}
        for file_id in (batch.error_file_id, batch.output_file_id):  # answers override errors of the same id
            if not file_id:
                continue
            data = await self._download(file_id, batch_id)
            for line in data.splitlines():
                if not line.strip():
                    continue
                row = json.loads(line)
                key = str(row.get("custom_id") or "")
                response = row.get("response") or {}
                status = response.get("status_code")
                if status == 200 and isinstance(response.get("body"), dict):
                    out[key] = BatchItem(reply=chat_reply(response["body"]))
                else:
                    error = row.get("error") or (response.get("body") or {}).get("error") or {}
                    message = error.get("message") if isinstance(error, dict) else str(error)
                    out.setdefault(key, BatchItem(error=f"batch request failed (HTTP {status or '-'}): "
                                                        f"{message or 'no detail'}"[:500]))
        if batch.status != "completed" and not out:
            detail = "; ".join(e.message or "" for e in (batch.errors.data or [])) if batch.errors else ""
            return {WHOLE_BATCH: BatchItem(error=f"batch {batch.status}{': ' + detail if detail else ''}"[:500])}
        return out

    def classify(self, exc: Exception) -> Failure | None:
        if isinstance(exc, openai.APIStatusError):
            return http_failure(exc.status_code, exc.response.headers, exc.message)
        if isinstance(exc, openai.APIConnectionError):  # timeouts included; the HTTP client's error is chained
            return transport_failure(exc) or http_failure(None, None, str(exc))
        return None


def chat_body(messages: tuple[Message, ...], rest: dict[str, Any] | str) -> bytes:
    """A chat request body: `{"messages": [...], **rest}` as compact JSON bytes (`rest` may come encoded)."""
    head = ",".join(m.json_object() for m in messages)
    tail = rest if isinstance(rest, str) else json.dumps(rest, ensure_ascii=False, separators=(",", ":"))
    return f'{{"messages":[{head}],{tail[1:]}'.encode()


def chat_reply(response: dict[str, Any]) -> Reply:
    """A chat-completion response body, normalised (interactive calls and batch results alike)."""
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


def status_error(response: Any) -> openai.APIStatusError:
    """The SDK's exception for an HTTP error response, with the server's message."""
    try:
        body: Any = json.loads(response.content)
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    text = message or (response.text[:500] if response.content else "") or f"HTTP {response.status_code}"
    return openai.APIStatusError(str(text), response=response, body=body)
