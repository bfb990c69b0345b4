"""`reasoning_effort`: a model parameter each provider sends in its own terms, and part of the request key only
when it is set (so every request key recorded before it existed is still the same key, and resumes replay)."""

import asyncio

import pytest
from pydantic import ValidationError

from lhl_platform.clause.extraction.task import ExtractTask
from lhl_platform.domain.models import ModelSpec
from lhl_platform.domain.params import THINKING_BUDGET_TOKENS, ModelParams
from lhl_platform.factory import build_model
from lhl_platform.providers.base import Message, ModelRequest
from lhl_platform.providers.llm.gemini import thinking_config
from tests.fakes import ScriptedServer
from tests.test_llm_providers import ANSWER, AnthropicFake, GeminiFake, OpenAIFake, request

# The key of this request as computed before `reasoning_effort` existed (main at 467377f): it must not move.
KEY_BEFORE_REASONING_EFFORT = "6d900db3630590d7bafa485c855cdded9f8a4993d81d67252e369fce8650264c"


def _keyed_request(params: ModelParams) -> ModelRequest:
    return ModelRequest(provider="openai", model_id="gpt-test", prompt_version="extract-v1", run=1,
                        params=params.sampling(),
                        messages=(Message(role="system", content="Review."),
                                  Message(role="user", content="CONTRACT: x")),
                        task=ExtractTask(contract_id="c1", contract_text="x", clause_types=("Governing Law",)))


def test_an_unset_reasoning_effort_leaves_the_request_key_byte_identical():
    assert ModelParams().sampling() == {"temperature": 0.0, "max_output_tokens": 8192}
    assert _keyed_request(ModelParams()).key() == KEY_BEFORE_REASONING_EFFORT
    assert ModelParams().explicit() == {}  # a registration without it records nothing new


def test_a_set_reasoning_effort_is_part_of_the_key():
    high = _keyed_request(ModelParams(reasoning_effort="high"))
    low = _keyed_request(ModelParams(reasoning_effort="low"))
    assert len({high.key(), low.key(), KEY_BEFORE_REASONING_EFFORT}) == 3
    assert ModelParams(reasoning_effort="high").explicit() == {"reasoning_effort": "high"}


def test_an_unknown_effort_is_rejected_naming_the_field():
    with pytest.raises(ValidationError, match="reasoning_effort"):
        ModelParams(reasoning_effort="extreme")


@pytest.fixture(scope="module")
def server():
    with ScriptedServer() as srv:
        yield srv


def _sent_body(server, fake, monkeypatch, **params):
    for name, value in fake.env.items():
        monkeypatch.setenv(name, value)
    model_id = {"openai": "gpt-test", "anthropic": "claude-test", "gemini": "gemini-test"}[fake.provider]
    spec = ModelSpec(name="m", provider=fake.provider, model_id=model_id, base_url=server.url + fake.base,
                     params={"max_retries": 0, "timeout_s": 5, **params})
    server.script(fake.ok(ANSWER))
    response = asyncio.run(build_model(spec).complete(request(spec)))
    assert response.content == ANSWER, response.error
    (seen,) = server.requests
    return seen.body


def test_openai_sends_reasoning_effort_natively_and_no_temperature_with_reasoning_on(server, monkeypatch):
    body = _sent_body(server, OpenAIFake(), monkeypatch, reasoning_effort="medium", top_p=0.9)
    assert body["reasoning_effort"] == "medium" and "temperature" not in body and "top_p" not in body
    off = _sent_body(server, OpenAIFake(), monkeypatch, reasoning_effort="none")
    assert off["reasoning_effort"] == "none" and off["temperature"] == 0
    plain = _sent_body(server, OpenAIFake(), monkeypatch)
    assert "reasoning_effort" not in plain and plain["temperature"] == 0


def test_anthropic_turns_effort_into_an_extended_thinking_budget(server, monkeypatch):
    body = _sent_body(server, AnthropicFake(), monkeypatch, reasoning_effort="high", max_output_tokens=4000)
    budget = THINKING_BUDGET_TOKENS["high"]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert body["max_tokens"] == 4000 + budget  # the answer keeps its own limit on top of the thinking
    assert body["tool_choice"] == {"type": "auto"}  # thinking refuses a forced tool
    assert "temperature" not in body and "top_p" not in body
    off = _sent_body(server, AnthropicFake(), monkeypatch, reasoning_effort="none")
    assert off["thinking"] == {"type": "disabled"} and off["tool_choice"]["type"] == "tool"
    plain = _sent_body(server, AnthropicFake(), monkeypatch)
    assert "thinking" not in plain and plain["temperature"] == 0


def test_gemini_turns_effort_into_a_thinking_config(server, monkeypatch):
    body = _sent_body(server, GeminiFake(), monkeypatch, reasoning_effort="low")
    # This SDK generation passes the field through in its Python spelling; the API reads either spelling.
    (name, level), = body["generationConfig"]["thinkingConfig"].items()
    assert name in ("thinkingLevel", "thinking_level") and level == "LOW"
    plain = _sent_body(server, GeminiFake(), monkeypatch)
    assert "thinkingConfig" not in plain["generationConfig"]


def test_gemini_2_5_takes_a_budget_and_none_switches_thinking_off():
    assert thinking_config("gemini-2.5-pro", "medium").thinking_budget == THINKING_BUDGET_TOKENS["medium"]
    assert thinking_config("gemini-2.5-pro", "medium").thinking_level is None
    assert thinking_config("gemini-3.1-pro", "none").thinking_budget == 0
    assert thinking_config("gemini-3.1-pro", None) is None
