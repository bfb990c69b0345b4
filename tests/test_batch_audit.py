"""`lhl audit --batch` against loopback fakes of the three providers' batch APIs (OpenAI files + batches,
Anthropic Message Batches, Gemini batch mode with inline requests), driven through the real SDKs.

A batch audit records what an interactive one records; a run killed after its batch was submitted resumes by
polling it, never by submitting again; a partly failed batch ends with every instance answered or recorded as
a missing row with its reason; and the waiting shows in the Dagster run's log. The report's cost of both audits
reconciles with the token counts the server returned (the prices are tests/test_prices.py's)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lhl_platform.clause.extraction.engine import extraction_stream
from lhl_platform.clause.extraction.events import ExtractionFailed, ExtractionRecorded
from lhl_platform.clause.judging import verdict_stream
from lhl_platform.clause.report.build import build_report
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import load_corpus
from lhl_platform.domain.models import Price
from lhl_platform.events.payloads import ModelCall
from lhl_platform.home import Home
from lhl_platform.progress import cost_usd
from lhl_platform.suites import get_suite
from orchestration.cli import main
from orchestration.cli.audit import AuditOptions, run_audit
from tests import speed_tmpfs
from tests.fakes import ProviderFake, Served, key_of
from tests.test_prices import FLAGS, PRICES

tmp_path = speed_tmpfs.tmp_path  # homes on tmpfs (Dagster's SQLite commits)
tmp_path_factory = speed_tmpfs.tmp_path_factory
tmpfs_factory = speed_tmpfs.tmpfs_factory

PROVIDERS = ["openai", "anthropic", "gemini"]
MODEL_IDS = {"openai": "gpt-test", "anthropic": "claude-test", "gemini": "gemini-test"}
KEYS = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "ak-test", "GEMINI_API_KEY": "gk-test"}
PARAMS = {"max_retries": 1, "backoff_base_s": 0.01, "backoff_max_s": 0.05, "timeout_s": 20, "concurrency": 4}
STREAM = extraction_stream("m", 1)


def _batch_audit(home: str, model: str = "m", judge: str | None = None) -> int:
    """`lhl audit --models MODEL --batch` through the one audit path, without the metrics job these tests do not
    read (the `audited` fixture's batch audit runs it; the warehouse is built when a test reads it)."""
    return run_audit(Home.resolve(home), get_suite("clause"), [model], [1], AuditOptions(batch=True, judge=judge),
                     say=lambda _: None, metrics=False)


def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("LHL_BATCH_POLL_SECONDS", "0.05")


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    _environment(monkeypatch)


def _home(tmp_path: Path, name: str, fake: ProviderFake) -> str:
    home = str(tmp_path / name)
    assert main(["--home", home, "ingest", "cuad", str(DEMO_DIR)]) == 0
    assert main(["--home", home, "models", "add", "m", "--provider", fake.provider, "--model-id",
                 MODEL_IDS[fake.provider], "--base-url", fake.base_url, "--params", json.dumps(PARAMS),
                 *FLAGS]) == 0
    return home


@pytest.fixture(scope="module", params=PROVIDERS)
def audited(request: pytest.FixtureRequest, tmp_path_factory) -> dict[str, object]:
    """Per provider, one home audited interactively and one through the batch API, each against its own fake, at
    every published rate (FLAGS): built once, read by the batch-equality and the cost-reconciliation tests."""
    provider = request.param
    root = tmp_path_factory.mktemp(f"audited-{provider}")
    with pytest.MonkeyPatch.context() as monkeypatch, ProviderFake(provider) as live, \
            ProviderFake(provider) as batched:
        _environment(monkeypatch)
        interactive = _home(root, "interactive", live)
        batch = _home(root, "batch", batched)
        # The interactive audit is only the batch one's baseline: the one audit path without the metrics job (its
        # warehouse is built when the report reads it); the batch audit goes through the CLI, metrics and all.
        assert run_audit(Home.resolve(interactive), get_suite("clause"), ["m"], [1], say=lambda _: None,
                         metrics=False) == 0
        assert main(["--home", batch, "audit", "--models", "m", "--batch"]) == 0
        return {"provider": provider, "interactive": interactive, "batch": batch,
                "live": (live.batch_creates, list(live.interactive), list(live.served)),
                "batched": (batched.batch_creates, list(batched.interactive), list(batched.served))}


def _recorded(home: str) -> tuple[list[tuple[object, ...]], list[tuple[str, str]], list[ModelCall]]:
    events = Home.resolve(home).events.read(STREAM)
    instances = sorted((x.contract_id, x.clause_type, x.present, x.quotes, x.request_key)
                       for x in (e.data_as(ExtractionRecorded) for e in events if e.type == "extraction.recorded"))
    calls = [e.data_as(ModelCall) for e in events if e.type == "model.call"]
    return instances, sorted((c.request_key, json.dumps(c.content, sort_keys=True)) for c in calls), calls


def test_a_batch_audit_records_what_an_interactive_audit_records(audited):
    provider, interactive, batch = audited["provider"], audited["interactive"], audited["batch"]
    live_creates, live_interactive, _ = audited["live"]
    batch_creates, batch_interactive, _ = audited["batched"]
    assert (live_creates, len(live_interactive)) == (0, 12)
    assert (batch_creates, batch_interactive) == (1, [])

    got_i, calls_i, records_i = _recorded(interactive)
    got_b, calls_b, records_b = _recorded(batch)
    assert len(got_i) == 12 * 41 and got_b == got_i  # same instances, from the same request keys
    assert calls_b == calls_i  # same requests, same structured answers
    assert all(c.batch_id is None for c in records_i)
    assert {c.batch_id for c in records_b} == {"batch_1" if provider == "openai" else
                                               "msgbatch_1" if provider == "anthropic" else "batches/b1"}
    report_i, report_b = build_report(Home.resolve(interactive)), build_report(Home.resolve(batch))
    assert [r.model_dump() for r in report_b.leaderboard] == [r.model_dump() for r in report_i.leaderboard]
    assert [r.model_dump() for r in report_b.typed_profiles] == [r.model_dump() for r in report_i.typed_profiles]
    (usage_i,), (usage_b,) = report_i.usage, report_b.usage
    assert usage_b.extraction_calls == usage_i.extraction_calls == 12
    assert usage_b.extraction_cost_usd < usage_i.extraction_cost_usd  # batch prices

    # The waiting is in the Dagster run's log: the submission, the polls, the collection.
    from dagster import DagsterInstance

    instance = DagsterInstance.from_config(str(Path(batch) / "dagster"))
    try:
        messages = [e.user_message for run in instance.get_runs() for e in instance.all_logs(run.run_id)]
    finally:
        instance.dispose()
    assert any("submitted batch" in m for m in messages)
    assert any("ended" in m and "results recorded" in m for m in messages)


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


@pytest.mark.parametrize("batch", [False, True], ids=["interactive", "batch"])
def test_the_report_cost_reconciles_with_the_tokens_the_server_returned(audited, batch):
    provider, home = audited["provider"], audited["batch" if batch else "interactive"]
    served = audited["batched" if batch else "live"][2]
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


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_run_killed_after_submission_resumes_by_polling_never_resubmitting(provider, tmp_path):
    with ProviderFake(provider) as fake:
        home = _home(tmp_path, "home", fake)
        fake.hold.set()  # the provider keeps the batch in progress
        command = [sys.executable, "-m", "orchestration.cli", "--home", home, "audit", "--models", "m", "--batch"]
        first = subprocess.Popen(command, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        log = Home.resolve(home).events
        deadline = time.monotonic() + 120
        submitted = False
        while not submitted and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.1)
            submitted = fake.batch_creates == 1 and any(e.type == "batch.submitted" for e in log.read(STREAM))
        assert submitted, first.stderr.read().decode() if first.poll() is not None else "no submission seen"
        time.sleep(0.3)  # a few polls of the held batch
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        polls_before = sum(job["polls"] for job in fake.batches.values())
        assert polls_before >= 1

        fake.hold.clear()
        assert _batch_audit(home) == 0
        assert fake.batch_creates == 1, "the resumed run submitted again"
        assert fake.interactive == []
        assert len(fake.served) == 12  # each request answered once, by the one batch

    instances, _, calls = _recorded(home)
    assert len(instances) == 12 * 41 and len(calls) == 12
    assert main(["--home", home, "verify"]) == 0


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_partly_failed_batch_ends_answered_or_missing_with_a_reason(provider, tmp_path):
    with ProviderFake(provider) as fake:
        home = _home(tmp_path, "home", fake)
        contracts = sorted(load_corpus(Home.resolve(home)).contracts, key=lambda c: c.contract_id)
        retried, refused = key_of(contracts[2].text), key_of(contracts[7].text)
        fake.fail_in_batch = lambda text: "server overloaded" if key_of(text) in (retried, refused) else None
        fake.fail_interactive = lambda text: "this contract is not accepted" if key_of(text) == refused else None
        assert _batch_audit(home) == 0
        assert fake.batch_creates == 1
        assert sorted(fake.interactive) == sorted([retried, refused])  # the two failures retried interactively

    events = Home.resolve(home).events.read(STREAM)
    instances, _, calls = _recorded(home)
    failures = [e.data_as(ExtractionFailed) for e in events if e.type == "extraction.failed"]
    answered = {c for c, *_ in instances}
    by_contract = {c.contract_id: c for c in contracts}
    for contract_id in by_contract:
        got = sum(1 for c, *_ in instances if c == contract_id)
        reasons = [f for f in failures if f.contract_id == contract_id]
        assert got == 41 or (got == 0 and reasons and all(f.reason for f in reasons)), contract_id
    assert contracts[2].contract_id in answered  # the retry answered it ...
    assert next(c for c in calls if c.subject == contracts[2].contract_id).batch_id is None  # ... interactively
    bad = contracts[7].contract_id
    assert bad not in answered
    stages = {f.stage: f.reason for f in failures if f.contract_id == bad}
    assert "server overloaded" in stages["batch"] and "not accepted" in stages["call"]
    with_reason = {f.contract_id for f in failures}
    assert with_reason == {contracts[2].contract_id, bad}

    from lhl_platform.warehouse.build import read_warehouse

    with read_warehouse(Home.resolve(home)) as con:
        missing = con.execute("select contract_id, count(*) from missing_rows where model = 'm' "
                              "group by contract_id").fetchall()
    assert missing == [(bad, 41)]
    assert main(["--home", home, "verify"]) == 0


def _verdict_or_extraction(text: str) -> dict[str, object]:
    """A judge request (the rubric's user message) gets a verdict; anything else the usual extraction."""
    if text.startswith("Clause type:"):
        return {"verdict": "supported", "mismatch_type": "none", "reason": "same"}
    from tests.fakes import default_answer

    return default_answer(text)


def test_judge_calls_go_through_the_batch_api_too(tmp_path):
    # An offline extractor, judged by an LLM judge in batch: the judging stage is a single-call stage like
    # extraction, so `--batch` sends its requests as one job, recorded as model.call events of that job.
    with ProviderFake("openai", answer=_verdict_or_extraction) as fake:
        home = str(tmp_path / "home")
        assert main(["--home", home, "ingest", "cuad", str(DEMO_DIR)]) == 0
        assert main(["--home", home, "models", "add", "lex", "--provider", "offline", "--model-id", "lexical"]) == 0
        assert main(["--home", home, "models", "add", "j", "--provider", "openai", "--model-id", "gpt-judge",
                     "--base-url", fake.base_url, "--role", "judge", "--params", json.dumps(PARAMS)]) == 0
        assert _batch_audit(home, "lex", judge="j") == 0
        assert fake.batch_creates == 1 and fake.interactive == []
    events = Home.resolve(home).events.read(verdict_stream("lex", 1))
    calls = [c for c in (e.data_as(ModelCall) for e in events if e.type == "model.call") if c.model == "j"]
    verdicts = [e for e in events if e.type == "verdict.recorded" and '"judge":"j"' in e.payload]
    assert calls and len(verdicts) == len(calls) and all(c.batch_id == "batch_1" and c.stage == "judge"
                                                         for c in calls)
