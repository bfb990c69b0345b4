"""Throughput controls, cost accounting and the dry-run estimate."""

import asyncio
import json
import random
import time

import pytest

from lhl_platform.clause.report.build import build_report
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.domain.models import ModelSpec, Price
from lhl_platform.domain.params import ModelParams
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.progress import cost_usd
from lhl_platform.providers.llm.base import retry_after_seconds
from lhl_platform.providers.llm.limits import CircuitBreaker, TokenBucket, backoff_delay
from orchestration.cli import main
from tests import speed_tmpfs
from tests.fakes import Reply, ScriptedServer

tmp_path = speed_tmpfs.tmp_path  # homes on tmpfs (Dagster's SQLite commits)
tmp_path_factory = speed_tmpfs.tmp_path_factory
tmpfs_factory = speed_tmpfs.tmpfs_factory


def test_backoff_is_jittered_exponential_and_never_shorter_than_retry_after():
    limits = ModelParams(backoff_base_s=1.0, backoff_max_s=30.0)
    rng = random.Random(0)
    delays = [backoff_delay(4, limits, None, rng) for _ in range(200)]
    assert min(delays) >= 0 and max(delays) <= 16 and len(set(delays)) > 100
    assert all(backoff_delay(0, limits, 7.5, rng) >= 7.5 for _ in range(50))
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({}) is None


def test_token_bucket_holds_the_rate():
    async def take(n):
        bucket = TokenBucket(rate_per_minute=600)  # 10 per second, 600 at once to start
        bucket.tokens = 0
        started = time.perf_counter()
        for _ in range(n):
            await bucket.take(1)
        return time.perf_counter() - started

    assert asyncio.run(take(5)) == pytest.approx(0.5, abs=0.15)


def test_circuit_breaker_opens_after_consecutive_server_errors():
    breaker = CircuitBreaker(threshold=3, cooldown_s=60)
    for _ in range(2):
        breaker.record(server_error=True)
    breaker.record(server_error=False)  # a success resets the count
    assert breaker.opened == 0
    for _ in range(3):
        breaker.record(server_error=True)
    assert breaker.opened == 1 and breaker.open_until > time.monotonic() + 50


def test_cost_uses_cached_price_for_cached_tokens():
    price = Price(input_per_mtok=2.0, output_per_mtok=10.0, cached_input_per_mtok=0.5)
    assert cost_usd(price, 1200, 300, 1024) == pytest.approx((176 * 2 + 1024 * 0.5 + 300 * 10) / 1e6)


def _completion():
    answer = {"clauses": [{"clause_type": c, "present": c == "Governing Law",
                           "quotes": ["This Agreement is governed by the laws of the State of Texas."]
                           if c == "Governing Law" else []} for c in CLAUSE_TYPES]}
    return Reply(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": json.dumps(answer)}}],
                       "usage": {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500,
                                 "prompt_tokens_details": {"cached_tokens": 1024}}})


def test_report_gains_tokens_and_cost_and_dry_run_estimates(tmp_path, capsys, monkeypatch):
    secret = "sk-live-DO-NOT-STORE-4242"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    home = str(tmp_path)
    with ScriptedServer() as server:
        server.script(default=_completion())
        assert main(["--home", home, "ingest", "cuad", str(DEMO_DIR)]) == 0
        assert main(["--home", home, "models", "add", "paid", "--provider", "openai", "--model-id", "m",
                     "--base-url", server.url + "/v1", "--input-price", "2", "--output-price", "10",
                     "--params", '{"concurrency": 4}']) == 0
        capsys.readouterr()
        assert main(["--home", home, "audit", "--models", "paid", "--runs", "1,2", "--dry-run"]) == 0
        out = capsys.readouterr().out
        assert "nothing is called" in out and "24 extraction calls" in out and server.requests == []
        # interactive and --batch side by side (no batch price registered: the batch rates are the interactive
        # ones, and the interactive estimate reads the instructions from the prompt cache after the first call)
        assert "interactive" in out and "--batch" in out and "with --batch" in out
        assert main(["--home", home, "audit", "--models", "paid", "--runs", "1", "--contracts", "4"]) == 0
        assert len(server.requests) == 4
        assert server.requests[0].headers["authorization"] == f"Bearer {secret}"  # the key is used ...
        capsys.readouterr()
        assert main(["--home", home, "audit", "--models", "paid", "--runs", "1", "--contracts", "4", "--dry-run"]) == 0
        assert "paid                   1       0" in capsys.readouterr().out  # done work is not estimated again
    (usage,) = build_report(Home.resolve(home)).usage
    # ... and never stored: not in events, corpora, the warehouse or the Dagster instance
    stored = [p for p in tmp_path.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert stored == []
    assert (usage.model, usage.run, usage.extraction_calls) == ("paid", 1, 4)
    assert (usage.input_tokens - usage.cached_tokens) >= 4 * 176
    # no cached price registered: cached tokens at the input price (never costed below it), output at $10/M
    assert usage.extraction_cost_usd == pytest.approx(4 * (1200 * 2 + 300 * 10) / 1e6)


def test_params_refuse_credentials():
    with pytest.raises(ValueError, match="credentials"):
        ModelSpec(name="m", provider="openai", model_id="x", params={"api_key": "sk-live"})
    ModelSpec(name="m", provider="openai", model_id="x", params={"api_key_env": "MY_KEY", "max_output_tokens": 10})


def test_dry_run_shows_interactive_and_batch_cost_side_by_side(tmp_path, capsys):
    from lhl_platform.clause.estimate import estimate_audit
    from lhl_platform.clause.extraction.prompts import extraction_messages
    from lhl_platform.providers.base import approx_tokens

    home = str(tmp_path)
    assert main(["--home", home, "ingest", "cuad", str(DEMO_DIR)]) == 0
    assert main(["--home", home, "models", "add", "claude", "--provider", "anthropic", "--model-id", "claude-x",
                 "--input-price", "3", "--cached-input-price", "0.3", "--cache-write-price", "3.75",
                 "--output-price", "15", "--batch-input-price", "1.5", "--batch-output-price", "7.5"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "audit", "--models", "claude", "--dry-run"]) == 0
    out = capsys.readouterr().out
    h = Home.resolve(home)
    from lhl_platform.clause.audit import select_contracts

    (row,) = estimate_audit(h, ["claude"], [1], select_contracts(h))
    instructions = approx_tokens(extraction_messages("", CLAUSE_TYPES)[0].content)
    assert (row.cached_tokens, row.cache_write_tokens) == (instructions * 11, instructions)
    fresh = row.input_tokens - row.cached_tokens - row.cache_write_tokens
    assert row.cost_usd == pytest.approx((fresh * 3 + row.cached_tokens * 0.3 + instructions * 3.75
                                          + row.output_tokens * 15) / 1e6)
    assert row.batch_cost_usd == pytest.approx((row.input_tokens * 1.5 + row.output_tokens * 7.5) / 1e6)
    assert f"${row.cost_usd:,.2f}" in out and f"${row.batch_cost_usd:,.2f}" in out and "with --batch" in out
