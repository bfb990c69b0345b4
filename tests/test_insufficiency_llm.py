"""InsufficiencyBench with LLMs: a model under test and an LLM judge through the real OpenAI SDK against a
loopback server speaking the Chat Completions wire format (nothing of ours is monkeypatched). The answers go
out as free text (no response_format) capped at 32,768 tokens with the model's temperature or reasoning
effort; the judge calls carry the seed's two output schemas as strict JSON schemas; a truncated and a refused
answer are recorded failures named by the report; a judge that fails the validation set is flagged.

Also, per provider (OpenAI, Anthropic, Gemini): a free-text task is sent without structured output and its text
becomes the answer; an empty reply is a failure, never an empty answer."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from lhl_platform.domain.models import ModelSpec
from lhl_platform.factory import build_model
from lhl_platform.home import Home
from lhl_platform.insufficiency.events import ResponseFailed
from lhl_platform.insufficiency.prompts import ANSWER_SYSTEM_PROMPT
from lhl_platform.insufficiency.selfbuilt import self_built_items
from lhl_platform.insufficiency.task import answer_messages, answer_task
from lhl_platform.providers.base import FinishReason, ModelRequest
from lhl_platform.registry import add_model
from orchestration.cli import main
from tests.fakes import Reply, ScriptedServer, Seen
from tests.test_llm_providers import FAKES, MODEL_IDS

FAST = {"backoff_base_s": 0.01, "backoff_max_s": 0.5, "max_retries": 1, "timeout_s": 10, "concurrency": 4}
ITEMS = self_built_items()
TRUNCATED, REFUSED = ITEMS.items[1].item_id, ITEMS.items[2].item_id
_GOLD = re.compile(r"Ground-truth missing elements \(canonical names\):\n(\[.*?\])\n")


def _completion(content: str, finish: str = "stop", refusal: str | None = None) -> Reply:
    return Reply(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "gpt-test",
                       "choices": [{"index": 0, "finish_reason": finish,
                                    "message": {"role": "assistant", "content": content, "refusal": refusal}}],
                       "usage": {"prompt_tokens": 900, "completion_tokens": 120, "total_tokens": 1020}})


def _openai(seen: Seen) -> Reply:
    """The Chat Completions API as this test's models answer: the model under test hedges on jurisdiction; the
    judge credits the first gold element and explains nothing (so it fails the validation set)."""
    body = seen.body
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
    prompt = body["messages"][-1]["content"]
    if schema is None:
        item = next(i for i in ITEMS.items if i.query == prompt)
        if item.item_id == TRUNCATED:
            return _completion("I would need to know which state", finish="length")
        if item.item_id == REFUSED:
            return _completion("", refusal="I can't give legal advice.")
        return _completion("Before I answer: which state are you in? The law differs by state.")
    gold = json.loads(_GOLD.search(prompt).group(1))  # type: ignore[union-attr]
    if schema == "IdentificationOutput":
        return _completion(json.dumps({"reasoning": "r", "identified_elements": gold[:1] + ["not_a_gold_tag"],
                                       "additional_claims": [], "claimed_anything_missing": True}))
    assert schema == "ExplanationSafetyOutput", schema
    return _completion(json.dumps({"reasoning": "r", "per_element_judgments": [
        {"element": tag, "explanation_match": {"model_explanation": "not addressed", "matches_ground_truth": False,
                                               "reasoning": "r"},
         "safety": {"fabricated": False, "fabrication_type": None, "evidence_span": "not applicable",
                    "verification_status": "unverified", "reasoning": "r"}} for tag in gold]}))


@pytest.fixture(scope="module")
def server():
    with ScriptedServer() as srv:
        yield srv


def test_an_llm_under_test_and_an_llm_judge_run_the_suite_through_the_wire_format(server, monkeypatch, tmp_path,
                                                                                  capsys) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    server.script()
    server.respond = _openai
    home = Home.resolve(tmp_path / "llm").ensure()
    base = server.url + "/v1"
    add_model(home, ModelSpec(name="gpt-warm", provider="openai", model_id="gpt-test", base_url=base,
                              params={**FAST, "temperature": 0.7}))
    add_model(home, ModelSpec(name="gpt-thinking", provider="openai", model_id="gpt-test", base_url=base,
                              params={**FAST, "reasoning_effort": "low"}))
    add_model(home, ModelSpec(name="gpt-judge", provider="openai", model_id="gpt-test", base_url=base, role="judge",
                              params=FAST))
    try:
        assert main(["--home", str(home.root), "audit", "--suite", "insufficiency", "--models",
                     "gpt-warm,gpt-thinking", "--judge", "gpt-judge"]) == 0
    finally:
        server.respond = None

    answers = [r.body for r in server.requests if "response_format" not in r.body]
    assert len(answers) == 2 * len(ITEMS.items)  # a failed answer is not retried by the stage within a run
    for body in answers:
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert body["messages"][0]["content"] == ANSWER_SYSTEM_PROMPT
        assert body["max_tokens"] == 32_768  # the seed's cap (an OpenAI-compatible base URL takes max_tokens)
    warm = [b for b in answers if "reasoning_effort" not in b]
    thinking = [b for b in answers if b.get("reasoning_effort") == "low"]
    assert len(warm) == len(thinking) == len(ITEMS.items)
    assert {b["temperature"] for b in warm} == {0.7} and not any("temperature" in b for b in thinking)
    judged = [r.body for r in server.requests if "response_format" in r.body]
    names = {b["response_format"]["json_schema"]["name"] for b in judged}
    assert names == {"IdentificationOutput", "ExplanationSafetyOutput"}
    assert all(b["response_format"]["json_schema"]["strict"] is True for b in judged)

    failures = {(f.model, f.item_id): f.finish_reason for f in (
        e.data_as(ResponseFailed) for e in home.events.read() if e.type == "insufficiency.response_failed")}
    assert failures == {(m, i): reason for m in ("gpt-warm", "gpt-thinking")
                        for i, reason in ((TRUNCATED, "length"), (REFUSED, "refusal"))}

    capsys.readouterr()
    assert main(["--home", str(home.root), "report", "--suite", "insufficiency", "--judge", "gpt-judge",
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    checks = {c["name"]: c for c in report["checks"]}
    assert not checks["responses_complete"]["passed"]
    assert f"gpt-warm run 1 {TRUNCATED} (length" in checks["responses_complete"]["summary"]
    assert checks["judgments_complete"]["passed"]
    assert not checks["judge_validated"]["passed"] and "FAILS" in checks["judge_validated"]["summary"]
    board = {r["model"]: r for r in report["leaderboard"]}
    assert set(board) == {"gpt-warm", "gpt-thinking"} and board["gpt-warm"]["judge"] == "gpt-judge"
    # the judge's made-up tag is dropped and counted, never a true positive
    assert all(r["dropped_identified"] == len(ITEMS.items) - 2 for r in report["coverage"])
    # a refused and a truncated answer: both models lack 2 items, so they are incomplete (null figures, unranked)
    assert all(not r["complete"] and r["rank"] is None and r["f2"] is None and r["hedge_rate"] is None
               and (r["judged"], r["cells"]) == (len(ITEMS.items) - 2, len(ITEMS.items)) for r in board.values())
    assert "incomplete, 2 missing" in board["gpt-warm"]["coverage"]
    # the per-item values the judge's answers give are still scored (and shown per response)
    from lhl_platform.warehouse.build import read_warehouse
    from lhl_platform.warehouse.scope import ScopeRequest

    with read_warehouse(home, ScopeRequest(suite="insufficiency", judge="gpt-judge")) as con:
        values = con.execute("select distinct hedge, expl_acc from insufficiency_units where model = 'gpt-warm' "
                             "and kind = 'variant'").fetchall()
    assert {h for h, _ in values} == {1.0} and {e for _, e in values if e is not None} == {0.0}
    coverage = {r["model"]: r for r in report["coverage"]}
    assert coverage["gpt-warm"]["response_calls"] == len(ITEMS.items) and coverage["gpt-warm"]["judge_calls"] > 0


def _free_text_request(spec: ModelSpec) -> ModelRequest:
    task = answer_task(ITEMS.items[0])
    return ModelRequest(provider=spec.provider, model_id=spec.model_id, prompt_version="insufficiency-answer-v1",
                        run=1, params=spec.params.sampling(), messages=answer_messages(task), task=task)


@pytest.fixture(params=FAKES, ids=lambda f: f.provider)
def fake(request, monkeypatch, server):
    for fake_ in FAKES:
        for name in fake_.env:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    for name, value in request.param.env.items():
        monkeypatch.setenv(name, value)
    server.respond = None  # the scripted replies of each test
    request.param.server = server
    return request.param


def _structured_parts(body: dict[str, Any]) -> set[str]:
    config = body.get("generationConfig") or {}
    return ({k for k in ("response_format", "tools", "tool_choice") if k in body}
            | {k for k in ("responseMimeType", "responseJsonSchema") if k in config})


def test_a_free_text_task_goes_out_without_structured_output_and_its_text_is_the_answer(fake) -> None:
    spec = ModelSpec(name="m", provider=fake.provider, model_id=MODEL_IDS[fake.provider],
                     base_url=fake.server.url + fake.base, params=FAST)
    text = "Which state are you in? Employer size also matters."
    fake.server.script(fake.ok(text) if fake.provider != "anthropic" else fake.ok(text, stop="end_turn"))
    response = asyncio.run(build_model(spec).complete(_free_text_request(spec)))
    assert response.error is None and response.content == {"text": text}
    (seen,) = fake.server.requests
    assert _structured_parts(seen.body) == set()
    empty = fake.ok("") if fake.provider != "anthropic" else fake.ok("", stop="end_turn")
    fake.server.script(default=empty)
    response = asyncio.run(build_model(spec).complete(_free_text_request(spec)))
    assert response.content is None and response.finish_reason is FinishReason.ERROR
    assert "empty answer" in (response.error or "")
    assert len(fake.server.requests) == 1  # free text has nothing to repair
    fake.server.script(default=fake.truncated())
    response = asyncio.run(build_model(spec).complete(_free_text_request(spec)))
    assert response.finish_reason is FinishReason.LENGTH and response.content is None
