"""Every suite's `lhl audit --dry-run` against the audit it estimates: the dry run calls nothing; the real audit then
runs against a loopback OpenAI-compatible server (the real OpenAI SDK) that reports usage at four characters per
token of the messages it was sent, and its calls and input tokens are within 15% of the estimate. The output side
is an assumption (each model's expected_output_tokens), stated by the dry run, not checked here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.home import Home
from lhl_platform.suites import get_suite
from lhl_platform.suites.estimate import SuiteEstimate, estimate_suite
from orchestration.cli import main
from tests.fakes import Reply, ScriptedServer, Seen

FAST = {"max_retries": 1, "backoff_base_s": 0.01, "timeout_s": 30, "concurrency": 8}
FREE_TEXT = "Before I answer: which state are you in, and how many employees does the employer have?"
ELEMENTS_HEADING = "Ground-truth missing elements (canonical names):\n"


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


def _content(body: dict[str, Any]) -> Any:
    """A valid answer to any of the suites' requests: a ContractScrub category finds nothing, an InsufficiencyBench
    answer is a short question back, its judge identifies nothing and judges every gold element it is shown."""
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
    if schema is None:
        return FREE_TEXT
    if schema == "IdentificationOutput":
        return {"reasoning": "none named", "identified_elements": [], "additional_claims": [],
                "claimed_anything_missing": False}
    if schema == "ExplanationSafetyOutput":
        prompt = body["messages"][-1]["content"]
        names = json.loads(prompt.split(ELEMENTS_HEADING, 1)[1].split("\n", 1)[0])
        return {"reasoning": "r", "per_element_judgments": [
            {"element": n, "explanation_match": {"model_explanation": "", "matches_ground_truth": False,
                                                 "reasoning": "r"},
             "safety": {"fabricated": False, "fabrication_type": None, "evidence_span": "",
                        "verification_status": "unverified", "reasoning": "r"}} for n in names]}
    return {"findings": []}  # a ContractScrub category's schema


def _prompt_tokens(seen: Seen) -> int:
    return sum(len(m["content"]) for m in seen.body["messages"]) // 4


def _respond(seen: Seen) -> Reply:
    content = _content(seen.body)
    text = content if isinstance(content, str) else json.dumps(content)
    prompt, completion = _prompt_tokens(seen), max(1, len(text) // 4)
    return Reply(200, {"id": "x", "object": "chat.completion", "created": 0, "model": seen.body["model"],
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text, "refusal": None}}],
                       "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                 "total_tokens": prompt + completion}})


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def _register(root: str, name: str, server: ScriptedServer, *extra: str, **params: Any) -> None:
    assert main(["--home", root, "models", "add", name, "--provider", "openai", "--model-id", "gpt-4o-mini",
                 "--base-url", server.url + "/v1", "--params", json.dumps({**FAST, **params}), *extra]) == 0


def _served(rows: list[SuiteEstimate], served: set[str]) -> tuple[int, int]:
    """The estimated calls and input tokens of the models the server answers for."""
    mine = [r for r in rows if r.caller in served]
    return sum(r.calls for r in mine), sum(r.input_tokens for r in mine)


def _dry_run_then_audit(capsys: pytest.CaptureFixture[str], root: str, server: ScriptedServer, suite: str,
                        served: set[str], *flags: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The estimate (printed, nothing sent) and what the audit then sent: (calls, input tokens) each."""
    code, out = _cli(capsys, "--home", root, "audit", "--suite", suite, "--models", "m", *flags, "--dry-run")
    assert code == 0, out
    assert "nothing is called" in out and "expected_output_tokens" in out and server.requests == []
    home = Home.resolve(root)
    config: dict[str, dict[str, Any]] = {}
    values = dict(zip(flags[::2], flags[1::2], strict=True))
    for stage in get_suite(suite).stages:
        chosen = {f: (int(v) if f == "contracts" else v) for flag, v in values.items()
                  if (f := flag.removeprefix("--").replace("-", "_")) in stage.config.model_fields}
        if chosen:
            config[stage.name] = chosen
    rows = estimate_suite(home, get_suite(suite), ["m"], [1], config)
    for r in rows:  # each row printed as the dry run's table shows it
        assert f"{r.calls:>7,} {r.input_tokens:>12,} {r.output_tokens:>11,}" in out
    estimated = _served(rows, served)
    code, out = _cli(capsys, "--home", root, "audit", "--suite", suite, "--models", "m", *flags)
    assert code == 0, out
    sent = (len(server.requests), sum(_prompt_tokens(s) for s in server.requests))
    return estimated, sent


def _within(estimated: tuple[int, int], sent: tuple[int, int]) -> None:
    (calls, tokens), (made, used) = estimated, sent
    assert made > 0 and used > 0
    assert abs(calls - made) <= 0.15 * made, (calls, made)
    assert abs(tokens - used) <= 0.15 * used, (tokens, used)


def test_contractscrub_estimate_is_within_15_percent_of_the_audit_it_estimates(tmp_path: Path, capsys) -> None:
    root = str(tmp_path / "home")
    with ScriptedServer() as server:
        server.respond = _respond
        assert main(["--home", root, "ingest", "cuad", str(DEMO_DIR)]) == 0
        assert main(["--home", root, "scrub", "build", "--contracts", "4"]) == 0
        _register(root, "m", server)
        server.script()  # the requests counted from here
        estimated, sent = _dry_run_then_audit(capsys, root, server, "contractscrub", {"m"}, "--contracts", "2")
    _within(estimated, sent)
    assert estimated[0] == sent[0] == 2 * 9  # two contracts, nine categories each
    # Recorded work is not estimated again.
    rows = estimate_suite(Home.resolve(root), get_suite("contractscrub"), ["m"], [1],
                          {"scrub_findings": {"contracts": 2}})
    assert rows == []


def test_insufficiency_estimate_with_an_llm_judge_is_within_15_percent(tmp_path: Path, capsys) -> None:
    """The model under test answers every item, the judge is validated on its hand-labelled set, then judges every
    answer (two calls for a variant, one for a base query). The judge's prompts hold answers not made yet at the
    dry run: the stand-in is the model's expected_output_tokens, registered here at this server's answer length."""
    root = str(tmp_path / "home")
    with ScriptedServer() as server:
        server.respond = _respond
        assert main(["--home", root, "ingest", "insufficiency"]) == 0
        _register(root, "m", server, expected_output_tokens=len(FREE_TEXT) // 4)
        _register(root, "j", server, "--role", "judge")
        server.script()
        estimated, sent = _dry_run_then_audit(capsys, root, server, "insufficiency", {"m", "j"}, "--judge", "j")
    _within(estimated, sent)
    assert estimated[0] == sent[0]  # every call is counted; only the judges' answers in their prompts are assumed


def test_a_model_without_rates_has_an_unknown_estimated_cost_named(tmp_path: Path, capsys) -> None:
    root = str(tmp_path / "home")
    assert main(["--home", root, "ingest", "insufficiency"]) == 0
    assert main(["--home", root, "models", "add", "m", "--provider", "openai", "--model-id", "not-in-any-table",
                 "--base-url", "http://127.0.0.1:9/v1"]) == 0
    capsys.readouterr()
    code, out = _cli(capsys, "--home", root, "audit", "--suite", "insufficiency", "--models", "m", "--dry-run")
    assert code == 0
    (answers,) = [line for line in out.splitlines() if line.startswith("m ") and "insufficiency_responses" in line]
    assert answers.split()[-2:] == ["unknown", "unknown"]
    total = next(line for line in out.splitlines() if line.startswith("total:"))
    assert "cost unknown: m has no rates" in total and "$" in total  # the cue judge's (free) part still costed
    rows = estimate_suite(Home.resolve(root), get_suite("insufficiency"), ["m"], [1], {})
    assert {r.caller: r.cost_usd for r in rows}["m"] is None  # null, never 0
