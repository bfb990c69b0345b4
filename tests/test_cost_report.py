"""Cost in the report: per model and stage, per correct answer, batch savings and a monitored model's runs, in every
format, against the real OpenAI SDK and a loopback server that reports usage (nothing of ours is monkeypatched).
Every expected figure is computed by hand from the token counts the server returned and the registered rates."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from lhl_platform.clause.report.build import build_report
from lhl_platform.clause.report.render import render_csv, render_text, report_json
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.home import Home
from lhl_platform.suites import get_suite
from lhl_platform.warehouse.scope import ScopeRequest
from orchestration.cli import main
from orchestration.cli.audit import AuditOptions, run_audit
from tests import speed_tmpfs
from tests.fakes import ProviderFake, Reply, ScriptedServer, Seen

tmp_path = speed_tmpfs.tmp_path  # homes on tmpfs (Dagster's SQLite commits)
tmp_path_factory = speed_tmpfs.tmp_path_factory
tmpfs_factory = speed_tmpfs.tmpfs_factory

# The server's usage per call of each kind (what it says it served), and the rates registered (USD per million).
EXTRACT_USAGE = {"prompt_tokens": 1200, "completion_tokens": 300, "cached_tokens": 1024}
JUDGE_USAGE = {"prompt_tokens": 500, "completion_tokens": 50, "cached_tokens": 0}
PAID_RATES = {"input": 2.0, "output": 10.0, "cached": 0.5}
JUDGE_RATES = {"input": 1.0, "output": 4.0}
FAST = {"concurrency": 4, "max_retries": 1, "backoff_base_s": 0.01, "timeout_s": 10}


def _reply(content: dict[str, Any], usage: dict[str, int]) -> Reply:
    return Reply(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "gpt-test",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": json.dumps(content)}}],
                       "usage": {"prompt_tokens": usage["prompt_tokens"], "completion_tokens":
                                 usage["completion_tokens"], "total_tokens": usage["prompt_tokens"]
                                 + usage["completion_tokens"],
                                 "prompt_tokens_details": {"cached_tokens": usage["cached_tokens"]}}})


def _is_judge(seen: Seen) -> bool:
    schema = ((seen.body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    return "verdict" in (schema.get("properties") or {})


def _answer(seen: Seen) -> Reply:
    """The extractor finds Governing Law (quoted) and nothing else; the judge supports every clause it is shown."""
    from lhl_platform.domain.taxonomy import CLAUSE_TYPES

    if _is_judge(seen):
        return _reply({"verdict": "supported", "mismatch_type": "none", "reason": "same"}, JUDGE_USAGE)
    quote = "This Agreement is governed by the laws of the State of Texas."
    return _reply({"clauses": [{"clause_type": c, "present": c == "Governing Law",
                                "quotes": [quote] if c == "Governing Law" else []} for c in CLAUSE_TYPES]},
                  EXTRACT_USAGE)


def _cost(usage: dict[str, int], rates: dict[str, float]) -> float:
    """One call by hand: fresh input at the input rate, cache reads at the cached rate, output at the output rate."""
    fresh = usage["prompt_tokens"] - usage["cached_tokens"]
    return (fresh * rates["input"] + usage["cached_tokens"] * rates.get("cached", rates["input"])
            + usage["completion_tokens"] * rates["output"]) / 1e6


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One home, one audit per server: `paid` (monitored, priced) and `mystery` (a model id the price table does
    not know, registered without rates: unknown cost), 2 runs of 2 contracts judged by the priced LLM judge `gj`;
    `bm` (priced, batch rates) through the batch API of a second server, judged by the offline default."""
    home = tmp_path_factory.mktemp("cost-report")
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", "sk-test-cost")
    mp.setenv("LHL_BATCH_POLL_SECONDS", "0.05")
    lhl = ["--home", str(home)]
    try:
        with ScriptedServer() as server, ProviderFake("openai") as fake:
            server.respond = _answer
            base = server.url + "/v1"
            assert main([*lhl, "ingest", "cuad", str(DEMO_DIR)]) == 0
            assert main([*lhl, "models", "add", "paid", "--provider", "openai", "--model-id", "gpt-test",
                         "--base-url", base, "--monitor", "--params", json.dumps(FAST),
                         "--input-price", "2", "--output-price", "10", "--cached-input-price", "0.5"]) == 0
            assert main([*lhl, "models", "add", "mystery", "--provider", "openai", "--model-id",
                         "no-such-model-anywhere", "--base-url", base, "--params", json.dumps(FAST)]) == 0
            assert main([*lhl, "models", "add", "gj", "--provider", "openai", "--model-id", "gpt-test",
                         "--base-url", base, "--role", "judge", "--params", json.dumps(FAST),
                         "--input-price", "1", "--output-price", "4"]) == 0
            assert main([*lhl, "models", "add", "bm", "--provider", "openai", "--model-id", "gpt-test",
                         "--base-url", fake.base_url, "--params", json.dumps({"concurrency": 3, "max_retries": 1}),
                         "--input-price", "3", "--output-price", "15", "--cached-input-price", "0.3",
                         "--batch-input-price", "1.5", "--batch-output-price", "7.5"]) == 0
            # the one audit path without the metrics job: the batch audit's `lhl audit` below runs it over both
            assert run_audit(Home.resolve(home), get_suite("clause"), ["paid", "mystery"], [1, 2],
                             AuditOptions(contracts=2, judge="gj"), say=lambda _: None, metrics=False) == 0
            assert main([*lhl, "audit", "--models", "bm", "--contracts", "3", "--batch"]) == 0
            server.respond = None
            requests, served = list(server.requests), list(fake.served)
    finally:
        mp.undo()
    report = build_report(Home.resolve(home), ScopeRequest(judge="gj"), resamples=50)
    return {"home": home, "requests": requests, "served": served, "report": report}


def _stage(report: Any, model: str, stage: str) -> Any:
    (row,) = [r for r in report.cost.by_stage if r.model == model and r.stage == stage]
    return row


def test_per_stage_costs_equal_the_servers_token_counts_at_the_registered_rates(audited):
    report, requests = audited["report"], audited["requests"]
    judged = sum(_is_judge(s) for s in requests)
    extracted = len(requests) - judged
    assert extracted == 2 * 2 * 2 and judged > 0  # paid and mystery: 2 runs x 2 contracts each
    solve = _stage(report, "paid", "solve")
    assert (solve.billed_model, solve.runs, solve.calls, solve.batch_calls) == ("paid", 2, 4, 0)
    assert (solve.input_tokens, solve.output_tokens, solve.cached_tokens) == (4 * 1200, 4 * 300, 4 * 1024)
    assert solve.cost_usd == pytest.approx(4 * _cost(EXTRACT_USAGE, PAID_RATES), rel=1e-12)
    assert solve.cost_usd == pytest.approx(4 * (176 * 2 + 1024 * 0.5 + 300 * 10) / 1e6, rel=1e-12)
    judge = _stage(report, "paid", "judge")
    mystery_judge = _stage(report, "mystery", "judge")
    assert judge.billed_model == "gj" and judge.calls + mystery_judge.calls == judged
    assert judge.cost_usd == pytest.approx(judge.calls * _cost(JUDGE_USAGE, JUDGE_RATES), rel=1e-12)
    # the same calls as the usage section, which the stages split
    usage = [u for u in report.usage if u.model == "paid"]
    assert sum(u.extraction_cost_usd for u in usage) == pytest.approx(solve.cost_usd, rel=1e-12)
    assert sum(u.judge_cost_usd for u in usage) == pytest.approx(judge.cost_usd, rel=1e-12)
    assert [r.model for r in report.cost.batch_savings] == ["bm"]  # paid made no batch call: no savings row


def test_cost_per_true_positive_is_the_total_over_the_true_positives(audited):
    report = audited["report"]
    (row,) = [r for r in report.cost.per_correct if r.model == "paid"]
    (board,) = [r for r in report.leaderboard if r.model == "paid"]
    total = _stage(report, "paid", "solve").cost_usd + _stage(report, "paid", "judge").cost_usd
    assert row.unit == "true positive" and row.correct == board.tp > 0 and row.calls == 4 + _stage(
        report, "paid", "judge").calls
    assert row.cost_usd == pytest.approx(total, rel=1e-12)
    assert row.cost_per_correct_usd == pytest.approx(total / board.tp, rel=1e-12)


def test_a_model_of_unknown_cost_is_unknown_everywhere(audited, tmp_path):
    report, home = audited["report"], str(audited["home"])
    solve = _stage(report, "mystery", "solve")
    assert solve.calls == 4 and solve.unknown_cost_calls == 4 and solve.cost_usd is None
    assert _stage(report, "mystery", "judge").cost_usd is not None  # its judge is priced: only its own calls
    (row,) = [r for r in report.cost.per_correct if r.model == "mystery"]
    assert row.cost_usd is None and row.cost_per_correct_usd is None
    assert report.cost.unknown == ["mystery"]
    # JSON: null, never 0
    data = report_json(report)["cost"]
    assert [r["cost_usd"] for r in data["by_stage"] if r["model"] == "mystery" and r["stage"] == "solve"] == [None]
    assert [(r["cost_usd"], r["cost_per_correct_usd"]) for r in data["per_correct"] if r["model"] == "mystery"] == [
        (None, None)]
    # text and Markdown: "unknown", named, never $0.00
    for markdown in (False, True):
        text = render_text(report, [], markdown=markdown)
        lines = [ln for ln in text.splitlines() if "mystery" in ln and "solve" in ln]
        assert len(lines) == 1 and "unknown" in lines[0] and "$0.00" not in lines[0]
        assert "unknown cost: mystery" in text
    # CSV: empty, never 0
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    (cell,) = [r for r in rows if r["table"] == "cost_by_stage" and r["model"] == "mystery" and r["stage"] == "solve"]
    assert cell["cost_usd"] == "" and cell["unknown_cost_calls"] == "4"
    # HTML: "unknown" with no value, and the figure of the monitored model's runs
    out = tmp_path / "r.html"
    assert main(["--home", home, "report", "--judge", "gj", "--format", "html", "--out", str(out)]) == 0
    page = out.read_text()
    section = page[page.index('<section id="cost">'):]
    section = section[:section.index("</section>")]
    row_html = next(r for r in section.split("<tr") if 'data-value="mystery"' in r and 'data-value="solve"' in r)
    assert 'data-metric="cost_usd" data-value="">unknown<' in row_html
    assert 'data-figure="cost_over_time"' in section and "<svg" in section
    assert 'href="#cost"' in page


def test_a_monitored_models_cost_over_time_is_per_run(audited):
    report = audited["report"]
    assert [(r.model, r.run) for r in report.cost.over_time] == [("paid", 1), ("paid", 2)]  # mystery: not monitored
    judge = _stage(report, "paid", "judge")
    runs = report.cost.over_time
    assert sum(r.cost_usd for r in runs) == pytest.approx(_stage(report, "paid", "solve").cost_usd + judge.cost_usd,
                                                          rel=1e-12)
    assert all(r.first_day == r.last_day and len(r.first_day) == 10 for r in runs)


def test_batch_savings_are_the_batch_calls_at_interactive_rates_minus_their_cost(audited):
    served = audited["served"]
    assert len(served) == 3 and all(s.batch is not None for s in served)
    batch = interactive = 0.0
    for s in served:
        fresh, read, out = (s.usage["prompt_tokens"] - s.usage["cached_tokens"], s.usage["cached_tokens"],
                            s.usage["completion_tokens"])
        batch += (fresh * 1.5 + read * 0.3 * 0.5 + out * 7.5) / 1e6  # the cache rate takes the batch discount
        interactive += (fresh * 3 + read * 0.3 + out * 15) / 1e6
    report = audited["report"]
    (row,) = report.cost.batch_savings  # only where batch was used
    assert (row.model, row.billed_model, row.batch_calls) == ("bm", "bm", 3)
    assert row.batch_cost_usd == pytest.approx(batch, rel=1e-9)
    assert row.interactive_cost_usd == pytest.approx(interactive, rel=1e-9)
    assert row.saved_usd == pytest.approx(interactive - batch, rel=1e-9) and row.saved_usd > 0
    assert row.saved_share == pytest.approx((interactive - batch) / interactive, rel=1e-9)
    assert _stage(report, "bm", "solve").batch_calls == 3
    assert _stage(report, "bm", "solve").cost_usd == pytest.approx(batch, rel=1e-9)
    assert "Batch savings (USD, against the registered interactive rates)" in render_text(report, [])


def test_a_suite_report_has_its_cost_section_in_every_format(tmp_path: Path, monkeypatch, capsys):
    """InsufficiencyBench with a priced model under test and a priced LLM judge on the loopback server: the solve
    stage costs what the server's usage says at the rates; per identified missing element is cost over TPs."""
    from lhl_platform.domain.models import ModelSpec, Price
    from lhl_platform.registry import add_model
    from tests.test_insufficiency_llm import ITEMS, _openai

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-suite")
    root = Home.resolve(tmp_path / "suite").ensure()
    with ScriptedServer() as server:
        server.respond = _openai  # every call: 900 prompt tokens, 120 completion tokens
        base = server.url + "/v1"
        add_model(root, ModelSpec(name="gpt-m", provider="openai", model_id="gpt-test", base_url=base,
                                  params=FAST, price=Price(input_per_mtok=2, output_per_mtok=10)))
        add_model(root, ModelSpec(name="gpt-judge", provider="openai", model_id="gpt-test", base_url=base,
                                  role="judge", params=FAST, price=Price(input_per_mtok=1, output_per_mtok=4)))
        assert main(["--home", str(root.root), "audit", "--suite", "insufficiency", "--models", "gpt-m",
                     "--judge", "gpt-judge"]) == 0
        server.respond = None
    capsys.readouterr()
    assert main(["--home", str(root.root), "report", "--suite", "insufficiency", "--judge", "gpt-judge",
                 "--format", "json"]) == 0
    cost = json.loads(capsys.readouterr().out)["cost"]
    per_call = {"solve": (900 * 2 + 120 * 10) / 1e6, "judge": (900 * 1 + 120 * 4) / 1e6}
    stages = {(r["stage"], r["role"]): r for r in cost["by_stage"] if r["model"] == "gpt-m"}
    assert stages[("solve", None)]["calls"] == len(ITEMS.items)
    assert {k for k in stages} == {("solve", None), ("judge", "identify"), ("judge", "explain")}
    for (stage, _), r in stages.items():
        assert r["billed_model"] == ("gpt-m" if stage == "solve" else "gpt-judge")
        assert r["cost_usd"] == pytest.approx(r["calls"] * per_call[stage], rel=1e-12)
    (row,) = cost["per_correct"]
    assert row["unit"] == "identified missing element" and row["correct"] > 0
    assert row["cost_usd"] == pytest.approx(sum(r["cost_usd"] for r in stages.values()), rel=1e-12)
    assert row["cost_per_correct_usd"] == pytest.approx(row["cost_usd"] / row["correct"], rel=1e-12)
    for fmt in ("table", "md"):
        assert main(["--home", str(root.root), "report", "--suite", "insufficiency", "--judge", "gpt-judge",
                     "--format", fmt]) == 0
        text = capsys.readouterr().out
        assert "Cost by model and stage" in text and "Cost per identified missing element" in text
        assert "batch savings: no call in scope was served by a batch API" in text
    assert main(["--home", str(root.root), "report", "--suite", "insufficiency", "--judge", "gpt-judge",
                 "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    (csv_row,) = [r for r in rows if r["table"] == "cost_per_correct"]
    assert float(csv_row["cost_per_correct_usd"]) == pytest.approx(row["cost_per_correct_usd"], rel=1e-9)
    out = tmp_path / "s.html"
    assert main(["--home", str(root.root), "report", "--suite", "insufficiency", "--judge", "gpt-judge",
                 "--format", "html", "--out", str(out)]) == 0
    assert '<section id="cost">' in out.read_text() and 'data-table="cost_per_correct"' in out.read_text()


@pytest.mark.parametrize(("source", "measured"), [("registration", True), ("offline", True), (None, True),
                                                  ("table", False), ("unknown", False)])
def test_a_batch_saving_is_measured_only_against_registered_interactive_rates(source, measured):
    # A call the price table priced has no registered rates to compare with: its interactive equivalent is
    # unknown (null), never a rate of 0 that would make the batch call look dearer than interactive.
    import duckdb

    from lhl_platform.warehouse.build import macros_sql

    con = duckdb.connect()
    con.execute(macros_sql())
    cost = None if source == "unknown" else 0.5
    (value,) = con.execute("select interactive_cost(?, ?, 1000, 0, 0, 100, 2.0, 0.5, 2.5, 10.0)",
                           [cost, source]).fetchone()
    assert value == (pytest.approx((1000 * 2.0 + 100 * 10.0) / 1e6) if measured else None)
