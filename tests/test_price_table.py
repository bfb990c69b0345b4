"""The maintained price table is the default: a model registered without rates is costed, call by call, at the rates
genai-prices (pinned) publishes for its provider and model id, and the table's version and the rate's source are
recorded with the registration and with each cost; rates given at `lhl models add` override the table's, rate by
rate; a model neither prices has an unknown cost (null, never 0), named wherever its cost is shown and refused under
a spending limit; an offline algorithm costs nothing by construction. Real OpenAI SDK, loopback server."""

from __future__ import annotations

import json
import re
import tomllib
from datetime import date
from pathlib import Path

import pytest
from genai_prices import Usage as TableUsage
from genai_prices import calc_price

from lhl_platform.clause.extraction.engine import extraction_stream
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.domain.models import ModelSpec
from lhl_platform.events.payloads import EventType, ModelCall
from lhl_platform.home import Home
from lhl_platform.providers.prices import table_rates, table_version
from lhl_platform.registry import REGISTRY_STREAM
from orchestration.cli import main
from tests import speed_tmpfs
from tests.fakes import INPUT_RATE, OUTPUT_RATE, TABLE_MODEL, MeteredServer

tmp_path = speed_tmpfs.tmp_path  # homes on tmpfs (Dagster's SQLite commits)
tmp_path_factory = speed_tmpfs.tmp_path_factory
tmpfs_factory = speed_tmpfs.tmpfs_factory

ROOT = Path(__file__).resolve().parents[1]
FAST = json.dumps({"concurrency": 4, "max_retries": 1, "backoff_base_s": 0.01, "timeout_s": 20})


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


def _calls(home: Home, model: str) -> list[ModelCall]:
    return [e.data_as(ModelCall) for e in home.events.read(extraction_stream(model, 1))
            if e.type == EventType.MODEL_CALL]


def _registration(home: Home, name: str) -> ModelSpec:
    return [e.data_as(ModelSpec) for e in home.events.read(REGISTRY_STREAM)
            if e.type == EventType.MODEL_REGISTERED and e.data_as(ModelSpec).name == name][-1]


def test_the_table_is_a_pinned_dependency_and_publishes_gpt_4o_minis_rates():
    pins = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert f"genai-prices=={table_version()}" in pins and table_version() == "0.2.3"
    rates = table_rates("openai", TABLE_MODEL, date(2026, 12, 1), False)
    batch = table_rates("openai", TABLE_MODEL, date(2026, 12, 1), True)
    assert rates is not None and batch is not None
    assert (rates.input.base, rates.output.base, rates.cached_input.base) == (INPUT_RATE, OUTPUT_RATE, 0.075)
    assert (batch.input.base, batch.output.base) == (INPUT_RATE / 2, OUTPUT_RATE / 2)
    assert table_rates("openai", "a-model-no-table-knows", date(2026, 12, 1), False) is None


def test_a_model_registered_without_rates_is_costed_at_the_tables_rates_and_given_rates_override_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(tmp_path / "home")
    with MeteredServer() as server:
        assert main(["--home", root, "ingest", "cuad", str(DEMO_DIR)]) == 0
        assert main(["--home", root, "models", "add", "table", "--provider", "openai", "--model-id", TABLE_MODEL,
                     "--base-url", server.base_url, "--params", FAST]) == 0
        assert main(["--home", root, "models", "add", "mine", "--provider", "openai", "--model-id", TABLE_MODEL,
                     "--base-url", server.base_url, "--params", FAST, "--input-price", "1"]) == 0
        assert main(["--home", root, "audit", "--models", "table,mine"]) == 0
        served = server.spent()
    home = Home.resolve(root)

    origin = _registration(home, "table").price_origin
    assert origin is not None and (origin.source, origin.table, origin.table_version, origin.table_model) == (
        "table", "genai-prices", "0.2.3", TABLE_MODEL)
    calls = _calls(home, "table")
    assert len(calls) == 12
    for call in calls:
        u = call.usage
        assert call.cost_usd == pytest.approx((u.input_tokens * INPUT_RATE + u.output_tokens * OUTPUT_RATE) / 1e6)
        library = calc_price(TableUsage(input_tokens=u.input_tokens, output_tokens=u.output_tokens), TABLE_MODEL,
                             provider_id="openai")
        assert call.cost_usd == pytest.approx(float(library.total_price))  # genai-prices' own figure
        assert call.price == origin
    # The given input rate overrides the table's; the output rate is still the table's.
    mine = _calls(home, "mine")
    assert len(mine) == 12 and all(c.price is not None and c.price.source == "registration+table" for c in mine)
    for call in mine:
        u = call.usage
        assert call.cost_usd == pytest.approx((u.input_tokens * 1.0 + u.output_tokens * OUTPUT_RATE) / 1e6)
    # The usage costed is the usage the server says it served (priced by the test at the table's rates).
    at_table_rates = sum(c.usage.input_tokens * INPUT_RATE + c.usage.output_tokens * OUTPUT_RATE for c in mine) / 1e6
    assert sum(c.cost_usd or 0.0 for c in calls) + at_table_rates == pytest.approx(served)

    capsys.readouterr()
    assert main(["--home", root, "models", "prices", "table"]) == 0
    shown = capsys.readouterr().out
    assert "the price table genai-prices 0.2.3 (openai/gpt-4o-mini)" in shown
    assert re.search(r"input\s+0\.15\s+genai-prices 0\.2\.3", shown)
    assert main(["--home", root, "models", "prices", "mine"]) == 0
    shown = capsys.readouterr().out
    assert re.search(r"input\s+1\s+given at registration", shown)
    assert re.search(r"output\s+0\.6\s+genai-prices 0\.2\.3", shown)


def test_a_model_neither_the_table_nor_its_registration_prices_has_an_unknown_cost_everywhere(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(tmp_path / "home")
    with MeteredServer() as server:
        assert main(["--home", root, "ingest", "cuad", str(DEMO_DIR)]) == 0
        capsys.readouterr()
        assert main(["--home", root, "models", "add", "local", "--provider", "openai", "--model-id", "local-7b",
                     "--base-url", server.base_url, "--params", FAST]) == 0
        assert "local's cost is unknown" in capsys.readouterr().err
        assert main(["--home", root, "models", "add", "lexical", "--provider", "offline", "--model-id",
                     "lexical"]) == 0
        # Under a spending limit it is refused before any request.
        assert main(["--home", root, "audit", "--models", "local", "--max-cost", "5"]) == 1
        refusal = capsys.readouterr().err.strip()
        assert len(refusal.splitlines()) == 1 and "refuses local, whose cost is unknown" in refusal
        assert server.count() == 0
        assert main(["--home", root, "audit", "--models", "local", "--dry-run"]) == 0
        estimate = capsys.readouterr().out
        row = next(line for line in estimate.splitlines() if line.startswith("local "))
        assert row.split()[5:7] == ["unknown", "unknown"] and "without the unknown cost of local" in estimate
        assert main(["--home", root, "audit", "--models", "local,lexical"]) == 0
        assert server.count() == 12
    home = Home.resolve(root)
    calls = _calls(home, "local")
    assert len(calls) == 12 and all(c.cost_usd is None and c.usage.input_tokens > 0 for c in calls)
    assert all(c.price is not None and c.price.source == "unknown" for c in calls)
    # An offline algorithm makes no paid call: its cost is 0 by construction, not unknown.
    offline = _calls(home, "lexical")
    assert len(offline) == 12 and all(c.cost_usd == 0.0 and c.price is not None and c.price.source == "offline"
                                      for c in offline)
    capsys.readouterr()
    assert main(["--home", root, "models", "prices", "local"]) == 0
    shown = capsys.readouterr().out
    assert "unknown: genai-prices 0.2.3 does not price openai model 'local-7b'" in shown
    assert "cost: unknown (null in every cost figure)" in shown
    assert main(["--home", root, "models", "list"]) == 0
    listed = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert listed["local"].endswith("cost unknown")
    # The report: the unknown model's cost is null (shown as unknown), the offline one's 0.
    assert main(["--home", root, "report", "--format", "json", "--resamples", "20"]) == 0
    usage = {u["model"]: u for u in json.loads(capsys.readouterr().out)["usage"]}
    assert usage["local"]["cost_usd"] is None and usage["local"]["extraction_cost_usd"] is None
    assert usage["local"]["input_tokens"] > 0 and usage["lexical"]["cost_usd"] == 0.0
    for fmt in ("table", "html"):
        assert main(["--home", root, "report", "--format", fmt, "--resamples", "20"]) == 0
        assert "unknown" in capsys.readouterr().out


def test_the_progress_line_shows_the_recorded_cost_and_names_an_unknown_one():
    from lhl_platform.domain.models import Usage
    from lhl_platform.progress import CallTally, ProgressBar

    bar = ProgressBar("m run 1:")
    priced, unknown, mixed = CallTally(), CallTally(), CallTally()
    priced.count(Usage(input_tokens=1000, output_tokens=100), 0.25)
    unknown.count(Usage(input_tokens=1000, output_tokens=100), None)
    mixed.count(Usage(input_tokens=1000, output_tokens=100), 0.25)
    mixed.count(Usage(input_tokens=1000, output_tokens=100), None)
    assert "| $0.25 |" in bar.line(priced.tick(1, 2))
    assert "| cost unknown |" in bar.line(unknown.tick(1, 2)) and "$" not in bar.line(unknown.tick(1, 2))
    assert "| $0.25 + unknown for 1 calls |" in bar.line(mixed.tick(2, 2))
