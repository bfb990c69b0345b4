"""Every published price is settable and used: cached input, cache writes, batch input and output. The
fakes report cached tokens as each provider does; the report's cost is reconciled, per provider, with the
token counts the server returned, interactively and through the batch API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lhl_platform.clause.extraction.engine import extraction_stream
from lhl_platform.clause.report.build import build_report
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.domain.models import ModelSpec, Price
from lhl_platform.events.payloads import ModelCall
from lhl_platform.home import Home
from lhl_platform.progress import cost_usd
from lhl_platform.registry import get_model
from orchestration.cli import main
from tests import speed_tmpfs
from tests.fakes import ProviderFake, Served

tmp_path = speed_tmpfs.tmp_path  # homes on tmpfs (Dagster's SQLite commits)
tmp_path_factory = speed_tmpfs.tmp_path_factory
tmpfs_factory = speed_tmpfs.tmpfs_factory

PROVIDERS = ["openai", "anthropic", "gemini"]
MODEL_IDS = {"openai": "gpt-test", "anthropic": "claude-test", "gemini": "gemini-test"}
KEYS = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "ak-test", "GEMINI_API_KEY": "gk-test"}
# Published rates, USD per million tokens (Anthropic-style: writes at 1.25x, reads at 0.1x, batch at half).
PRICES = {"input": 3.0, "output": 15.0, "cached": 0.30, "write": 3.75, "batch_input": 1.5, "batch_output": 7.5}
FLAGS = ["--input-price", "3", "--output-price", "15", "--cached-input-price", "0.3", "--cache-write-price", "3.75",
         "--batch-input-price", "1.5", "--batch-output-price", "7.5"]


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("LHL_BATCH_POLL_SECONDS", "0.05")


def test_every_published_price_is_settable_and_an_unpublished_one_is_the_rate_it_discounts(tmp_path, capsys):
    home = str(tmp_path)
    assert main(["--home", home, "models", "add", "claude", "--provider", "offline", "--model-id", "lexical",
                 *FLAGS]) == 0
    price = get_model(Home.resolve(home), "claude").price
    assert price == Price(input_per_mtok=3, output_per_mtok=15, cached_input_per_mtok=0.3, cache_write_per_mtok=3.75,
                          batch_input_per_mtok=1.5, batch_output_per_mtok=7.5)
    assert price.batch_discount == 0.5
    plain = Price(input_per_mtok=2, output_per_mtok=10)
    assert (plain.cached_input_per_mtok, plain.cache_write_per_mtok, plain.batch_input_per_mtok,
            plain.batch_output_per_mtok) == (2, 2, 2, 10)
    # A registration stored before these rates existed reads back with the same defaults.
    old = ModelSpec.model_validate({"name": "x", "provider": "offline", "model_id": "lexical",
                                    "price": {"input_per_mtok": 2, "output_per_mtok": 10, "cached_input_per_mtok": 0}})
    assert (old.price.cached_input_per_mtok, old.price.cache_write_per_mtok) == (0, 2)


def test_cost_prices_cache_reads_writes_and_batches_at_their_rates():
    price = Price(input_per_mtok=3, output_per_mtok=15, cached_input_per_mtok=0.3, cache_write_per_mtok=3.75,
                  batch_input_per_mtok=1.5, batch_output_per_mtok=7.5)
    # 10,000 input tokens: 6,000 read from the cache, 1,000 written to it, 3,000 fresh; 500 output
    assert cost_usd(price, 10_000, 500, 6_000, 1_000) == pytest.approx(
        (3_000 * 3 + 6_000 * 0.3 + 1_000 * 3.75 + 500 * 15) / 1e6)
    assert cost_usd(price, 10_000, 500, 6_000, 1_000, batch=True) == pytest.approx(
        (3_000 * 1.5 + (6_000 * 0.3 + 1_000 * 3.75) * 0.5 + 500 * 7.5) / 1e6)


def _expected(served: list[Served], provider: str) -> float:
    """The cost of what the server said it served, computed from its own usage fields at the published rates."""
    p = PRICES
    total = 0.0
    for s in served:
        u = s.usage
        half = p["batch_input"] / p["input"] if s.batch else 1.0
        rate_in, rate_out = (p["batch_input"], p["batch_output"]) if s.batch else (p["input"], p["output"])
        if provider == "openai":
            fresh, read, write, out = u["prompt_tokens"] - u["cached_tokens"], u["cached_tokens"], 0, u[
                "completion_tokens"]
        elif provider == "anthropic":
            fresh, read, write, out = (u["input_tokens"], u["cache_read_input_tokens"],
                                       u["cache_creation_input_tokens"], u["output_tokens"])
        else:
            fresh, read, write, out = (u["promptTokenCount"] - u["cachedContentTokenCount"],
                                       u["cachedContentTokenCount"], 0, u["candidatesTokenCount"])
        total += (fresh * rate_in + (read * p["cached"] + write * p["write"]) * half + out * rate_out) / 1e6
    return total


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("batch", [False, True], ids=["interactive", "batch"])
def test_the_report_cost_reconciles_with_the_tokens_the_server_returned(provider, batch, tmp_path: Path):
    home = str(tmp_path / "home")
    with ProviderFake(provider) as fake:
        assert main(["--home", home, "ingest", "cuad", str(DEMO_DIR)]) == 0
        assert main(["--home", home, "models", "add", "m", "--provider", provider, "--model-id", MODEL_IDS[provider],
                     "--base-url", fake.base_url, "--params", json.dumps({"concurrency": 3, "max_retries": 1}),
                     *FLAGS]) == 0
        assert main(["--home", home, "audit", "--models", "m", *(["--batch"] if batch else [])]) == 0
        served = list(fake.served)
    assert len(served) == 12 and all((s.batch is not None) == batch for s in served)

    # The provider cached the instructions after the first request: the second and later calls carry cached
    # tokens (Anthropic's first call wrote them to the cache instead), and they are priced at the cached rate.
    calls = [e.data_as(ModelCall) for e in Home.resolve(home).events.read(extraction_stream("m", 1))
             if e.type == "model.call"]
    assert len(calls) == 12
    hits = [c for c in calls if c.usage.cached_tokens > 0]
    assert len(hits) == 11 and all(c.usage.cached_tokens >= 1024 for c in hits)
    if provider == "anthropic":
        assert all(c.usage.cache_write_tokens > 0 for c in calls)  # the contract block is written every time
        first = next(c for c in calls if c.usage.cached_tokens == 0)
        assert first.usage.cache_write_tokens >= min(c.usage.cached_tokens for c in hits)  # it wrote what they read
    (usage,) = build_report(Home.resolve(home)).usage
    assert usage.extraction_calls == 12
    assert usage.cached_tokens == sum(c.usage.cached_tokens for c in calls) > 0
    assert usage.extraction_cost_usd == pytest.approx(_expected(served, provider), rel=1e-9)
    uncached = sum(cost_usd(Price(input_per_mtok=3, output_per_mtok=15, batch_input_per_mtok=1.5,
                                  batch_output_per_mtok=7.5), c.usage.input_tokens, c.usage.output_tokens,
                            batch=batch) for c in calls)
    assert usage.extraction_cost_usd < uncached  # the cache pays off (writes included)
