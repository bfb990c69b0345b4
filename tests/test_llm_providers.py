"""Each real provider SDK against a loopback fake server: request shape, parsing, 429 with Retry-After,
500, timeout, malformed JSON (one repair), truncated output, refusal, context window, missing key.

(These SDK generations send HTTP through httpx2, which respx does not intercept, so the fake is a real
HTTP server on 127.0.0.1 and each SDK is pointed at it with its own base-URL option.)"""

import asyncio
import json
import time

import pytest

from lhl_platform.clause.extraction.prompts import extraction_messages
from lhl_platform.clause.extraction.task import ExtractTask
from lhl_platform.domain.models import ModelSpec
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.factory import build_model
from lhl_platform.providers.base import FinishReason, ModelRequest
from lhl_platform.providers.llm.credentials import CredentialError
from tests.fakes import Reply, ScriptedServer

FAST = {"backoff_base_s": 0.01, "backoff_max_s": 2.0, "max_retries": 3, "timeout_s": 5}
ANSWER = {"clauses": [{"clause_type": c, "present": c == "Governing Law",
                       "quotes": ["governed by the laws of Ohio"] if c == "Governing Law" else []}
                      for c in CLAUSE_TYPES]}
TEXT = "MASTER AGREEMENT\nThis Agreement is governed by the laws of Ohio."


def request(spec, text=TEXT):
    return ModelRequest(provider=spec.provider, model_id=spec.model_id, prompt_version="extract-v1", run=1,
                        params=spec.params.sampling(), messages=extraction_messages(text, CLAUSE_TYPES),
                        task=ExtractTask(contract_id="c1", contract_text=text, clause_types=CLAUSE_TYPES))


class OpenAIFake:
    provider, env = "openai", {"OPENAI_API_KEY": "sk-test-secret"}
    path, base = "/v1/chat/completions", "/v1"

    def ok(self, payload, finish="stop", refusal=None):
        message = {"role": "assistant", "content": payload if isinstance(payload, str) else json.dumps(payload),
                   "refusal": refusal}
        return Reply(200, {
            "id": "c", "object": "chat.completion", "created": 0, "model": "gpt-test",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500,
                      "prompt_tokens_details": {"cached_tokens": 1024}}})

    truncated = lambda self: self.ok('{"clauses": [{"clause_ty', finish="length")  # noqa: E731
    refused = lambda self: self.ok("", refusal="I can't help with that.")  # noqa: E731

    def check_request(self, req):
        body = req.body
        assert req.headers["authorization"] == "Bearer sk-test-secret"
        assert body["model"] == "gpt-test" and body["temperature"] == 0
        assert [m["role"] for m in body["messages"]] == ["system", "user"]  # fixed prefix first: cacheable
        schema = body["response_format"]["json_schema"]
        assert schema["strict"] is True and schema["schema"]["required"] == ["clauses"]
        assert body["max_tokens"] == 8192  # an OpenAI-compatible server (base URL given) takes max_tokens


class AnthropicFake:
    provider, env = "anthropic", {"ANTHROPIC_API_KEY": "ak-test-secret"}
    path, base = "/v1/messages", ""

    def ok(self, payload, stop="tool_use"):
        block = ({"type": "tool_use", "id": "t1", "name": "submit_answer", "input": payload}
                 if isinstance(payload, dict) else {"type": "text", "text": payload})
        return Reply(200, {
            "id": "m", "type": "message", "role": "assistant", "model": "claude-test", "content": [block],
            "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 176, "output_tokens": 300, "cache_read_input_tokens": 1024,
                      "cache_creation_input_tokens": 0}})

    truncated = lambda self: self.ok('{"clauses": [', stop="max_tokens")  # noqa: E731
    refused = lambda self: self.ok("I won't do that.", stop="refusal")  # noqa: E731

    def check_request(self, req):
        body = req.body
        assert "ak-test-secret" in (req.headers.get("x-api-key", ""), req.headers.get("authorization", "")[7:])
        assert "anthropic-version" in req.headers
        assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
        assert body["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}  # the contract
        assert body["tool_choice"] == {"type": "tool", "name": "submit_answer"}
        assert body["tools"][0]["input_schema"]["required"] == ["clauses"]
        assert body["temperature"] == 0 and body["max_tokens"] == 8192


class GeminiFake:
    provider, env = "gemini", {"GEMINI_API_KEY": "gk-test-secret"}
    path, base = "/models/gemini-test:generateContent", ""

    def ok(self, payload, finish="STOP"):
        text = payload if isinstance(payload, str) else json.dumps(payload)
        return Reply(200, {
            "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": finish}],
            "usageMetadata": {"promptTokenCount": 1200, "candidatesTokenCount": 300, "cachedContentTokenCount": 1024}})

    truncated = lambda self: self.ok('{"clauses": [', finish="MAX_TOKENS")  # noqa: E731
    refused = lambda self: self.ok("", finish="SAFETY")  # noqa: E731

    def check_request(self, req):
        body = req.body
        assert req.headers["x-goog-api-key"] == "gk-test-secret"
        config = body["generationConfig"]
        assert config["responseMimeType"] == "application/json" and config["temperature"] == 0
        assert config["responseJsonSchema"]["required"] == ["clauses"]
        assert "systemInstruction" in body and body["contents"][0]["role"] == "user"


FAKES = [OpenAIFake(), AnthropicFake(), GeminiFake()]
MODEL_IDS = {"openai": "gpt-test", "anthropic": "claude-test", "gemini": "gemini-test"}


@pytest.fixture(scope="module")
def server():
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture(params=FAKES, ids=lambda f: f.provider)
def fake(request, monkeypatch, server):
    for fake_ in FAKES:
        for name in fake_.env:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    for name, value in request.param.env.items():
        monkeypatch.setenv(name, value)
    request.param.server = server
    return request.param


def model_for(fake, **params):
    spec = ModelSpec(name="m", provider=fake.provider, model_id=MODEL_IDS[fake.provider],
                     base_url=fake.server.url + fake.base, params={**FAST, **params})
    return build_model(spec), spec


def run(model, spec, text=TEXT):
    return asyncio.run(model.complete(request(spec, text)))


def test_request_shape_structured_output_and_usage(fake):
    fake.server.script(fake.ok(ANSWER))
    response = run(*model_for(fake))
    assert response.error is None and response.finish_reason is FinishReason.STOP
    assert response.content == ANSWER
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (1200, 300, 1024)
    (seen,) = fake.server.requests
    assert seen.path.startswith(fake.path) or fake.path in seen.path
    fake.check_request(seen)


def test_429_with_retry_after_is_honoured(fake):
    limited = Reply(429, {"error": {"message": "slow down", "code": 429}}, headers={"retry-after": "0.3"})
    fake.server.script(limited, fake.ok(ANSWER))
    started = time.perf_counter()
    response = run(*model_for(fake))
    assert response.content == ANSWER and len(fake.server.requests) == 2
    assert time.perf_counter() - started >= 0.3


def test_500_is_retried_then_recorded_when_persistent(fake):
    error = Reply(500, {"error": {"message": "boom", "code": 500}})
    fake.server.script(error, fake.ok(ANSWER))
    assert run(*model_for(fake)).content == ANSWER and len(fake.server.requests) == 2
    fake.server.script(default=error)
    response = run(*model_for(fake, max_retries=2))
    assert response.content is None and "server error (500)" in response.error and "after 3 attempts" in response.error


def test_timeout_is_retried(fake):
    slow = fake.ok(ANSWER)
    slow.delay = 1.5
    fake.server.script(slow, fake.ok(ANSWER))
    assert run(*model_for(fake, timeout_s=0.5)).content == ANSWER and len(fake.server.requests) == 2


def test_malformed_json_gets_one_repair_attempt(fake):
    fake.server.script(fake.ok("{'clauses': oops"), fake.ok(ANSWER))
    response = run(*model_for(fake))
    assert response.content == ANSWER and len(fake.server.requests) == 2
    assert "rejected" in json.dumps(fake.server.requests[1].body)
    fake.server.script(default=fake.ok("still not json"))
    response = run(*model_for(fake))
    assert response.content is None and "unparseable output after one repair attempt" in response.error


def test_truncated_output_is_a_recorded_failure(fake):
    fake.server.script(default=fake.truncated())
    response = run(*model_for(fake))
    assert response.finish_reason is FinishReason.LENGTH and "truncated" in response.error


def test_refusal_is_a_recorded_failure(fake):
    fake.server.script(default=fake.refused())
    response = run(*model_for(fake))
    assert response.finish_reason is FinishReason.REFUSAL and "refused" in response.error


def test_contract_longer_than_the_context_window_fails_without_a_call(fake):
    fake.server.script(default=fake.ok(ANSWER))
    response = run(*model_for(fake, context_window=10_000), text="word " * 40_000)
    assert fake.server.requests == []
    assert response.finish_reason is FinishReason.LENGTH and "context window" in response.error


def test_missing_key_is_a_clear_error_before_any_work(fake, monkeypatch):
    for name in fake.env:
        monkeypatch.delenv(name)
    spec = ModelSpec(name="m", provider=fake.provider, model_id=MODEL_IDS[fake.provider])
    with pytest.raises(CredentialError, match="set .*API_KEY"):
        build_model(spec)


def test_openai_compatible_server_needs_no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    spec = ModelSpec(name="local", provider="openai", model_id="qwen3-32b", base_url="http://127.0.0.1:8000/v1")
    assert build_model(spec).model_id == "qwen3-32b"


def test_gemini_explicit_context_cache_holds_the_instructions(server, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "gk-test-secret")
    gemini = GeminiFake()
    created = Reply(200, {"name": "cachedContents/abc123", "model": "models/gemini-test",
                          "expireTime": "2026-11-30T00:00:00Z"})
    server.script(created, gemini.ok(ANSWER), gemini.ok(ANSWER))
    spec = ModelSpec(name="m", provider="gemini", model_id="gemini-test", base_url=server.url,
                     params={**FAST, "context_cache_ttl_s": 3600})
    model = build_model(spec)

    async def two_calls():
        return [await model.complete(request(spec)), await model.complete(request(spec, TEXT + " again"))]

    assert all(r.content == ANSWER for r in asyncio.run(two_calls()))
    create, first, second = server.requests
    assert "cachedContents" in create.path and create.body["ttl"] == "3600s"
    assert "systemInstruction" in create.body
    for call in (first, second):  # the instructions are not re-sent; the cache is referenced
        assert call.body.get("cachedContent") == "cachedContents/abc123"
        assert "systemInstruction" not in call.body


def test_gemini_without_a_cache_falls_back_to_sending_instructions(server, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "gk-test-secret")
    gemini = GeminiFake()
    too_small = Reply(400, {"error": {"code": 400, "message": "Cached content is too small",
                                      "status": "INVALID_ARGUMENT"}})
    server.script(too_small, gemini.ok(ANSWER))
    spec = ModelSpec(name="m", provider="gemini", model_id="gemini-test", base_url=server.url,
                     params={**FAST, "context_cache_ttl_s": 3600})
    model = build_model(spec)
    assert run(model, spec).content == ANSWER
    assert "systemInstruction" in server.requests[1].body and model.cache_errors


RATE_LIMITED = Reply(429, {"error": {"code": 429, "message": "Resource has been exhausted",
                                     "status": "RESOURCE_EXHAUSTED"}})
CACHE_CREATED = Reply(200, {"name": "cachedContents/abc123", "model": "models/gemini-test",
                            "expireTime": "2026-11-30T00:00:00Z"})


def cached_gemini(server, monkeypatch, **params):
    monkeypatch.setenv("GEMINI_API_KEY", "gk-test-secret")
    spec = ModelSpec(name="m", provider="gemini", model_id="gemini-test", base_url=server.url,
                     params={**FAST, "context_cache_ttl_s": 3600, **params})
    return build_model(spec), spec


def test_gemini_cache_creation_is_retried_like_a_call(server, monkeypatch):
    server.script(RATE_LIMITED, CACHE_CREATED, GeminiFake().ok(ANSWER))
    model, spec = cached_gemini(server, monkeypatch)
    assert run(model, spec).content == ANSWER
    limited, create, call = server.requests
    assert "cachedContents" in limited.path and "cachedContents" in create.path
    assert call.body.get("cachedContent") == "cachedContents/abc123" and "systemInstruction" not in call.body
    assert model.cache_errors == []


def test_gemini_cache_that_cannot_be_created_is_reported_and_calls_go_uncached(server, monkeypatch):
    gemini = GeminiFake()
    server.script(*[RATE_LIMITED] * 3, gemini.ok(ANSWER), gemini.ok(ANSWER))
    model, spec = cached_gemini(server, monkeypatch, max_retries=2)

    async def two_calls():
        return [await model.complete(request(spec)), await model.complete(request(spec, TEXT + " again"))]

    assert all(r.content == ANSWER for r in asyncio.run(two_calls()))
    creates = [r for r in server.requests if "cachedContents" in r.path]
    calls = [r for r in server.requests if "generateContent" in r.path]
    assert len(creates) == 3 and len(calls) == 2  # the retries once, not again for every call
    assert all("systemInstruction" in c.body and "cachedContent" not in c.body for c in calls)
    (error,) = model.cache_errors
    assert "rate limited (429)" in error and "after 3 attempts" in error
