"""Every published price is settable and used: cached input, cache writes, batch input and output. The
fakes report cached tokens as each provider does; the report's cost is reconciled, per provider, with the
token counts the server returned, interactively and through the batch API, in tests/test_batch_audit.py (on the
homes it audits both ways at these prices, FLAGS: one pair of audits per provider for both files' checks)."""

from __future__ import annotations

import pytest

from lhl_platform.domain.models import ModelSpec, Price
from lhl_platform.home import Home
from lhl_platform.progress import cost_usd
from lhl_platform.registry import get_model
from orchestration.cli import main
from tests import speed_tmpfs

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
