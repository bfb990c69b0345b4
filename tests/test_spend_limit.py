"""A spending limit every audit honours: before each call, the spend so far plus the worst case of every call in
flight must stay within the limit, so the limit is never passed whatever the concurrency. A stopped audit says so in
one line and exits with its own code; the stop is an event; running it again resumes without repeating a request.
Counted from the loopback server's own token usage, through the real OpenAI SDK; for the clause suite (the demo
corpus always, 200 CUAD contracts at concurrency 16 when CUAD is here), a suite audit and a debate."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from lhl_platform.calls.budget import LIMIT_EXIT_CODE, LIMIT_REACHED, SPENDING_STREAM, LimitStopped, SpendLimit
from lhl_platform.clause.audit import select_contracts
from lhl_platform.clause.extraction.prompts import extraction_messages
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.domain.models import Contract
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.events.payloads import EventType, ModelCall
from lhl_platform.home import Home
from lhl_platform.insufficiency.selfbuilt import self_built_items
from lhl_platform.suites import get_suite
from orchestration.cli import main
from orchestration.cli.audit import AuditOptions, run_audit
from tests.fakes import TABLE_MODEL, MeteredServer, bill

FAST = {"max_retries": 1, "backoff_base_s": 0.01, "timeout_s": 30}


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


def _cli(*argv: str) -> int:
    return main(list(argv))


def _extraction_bill(contracts: Sequence[Contract], runs: int) -> float:
    """What the server will charge for extracting these contracts in `runs` runs (its own tokens, table rates)."""
    one = sum(bill([m.model_dump() for m in extraction_messages(c.text, CLAUSE_TYPES)], "ExtractionOutput")
              for c in contracts)
    return one * runs


def _calls(home: Home) -> list[ModelCall]:
    """The calls the LLM answered (the offline judge's are recorded too, at no cost)."""
    calls = (e.data_as(ModelCall) for e in home.events.read() if e.type == EventType.MODEL_CALL)
    return [c for c in calls if c.provider == "openai"]


def _stops(home: Home) -> list[LimitStopped]:
    return [e.data_as(LimitStopped) for e in home.events.read(SPENDING_STREAM) if e.type == LIMIT_REACHED]


def _stopped_line(err: str, limit: float) -> str:
    lines = [line for line in err.splitlines() if "spending limit reached" in line]
    assert len(lines) == 1, err
    assert f"of the ${limit:,.4f} limit" in lines[0] and "call(s) made" in lines[0] and "run it again" in lines[0]
    return lines[0]


def test_reservations_keep_the_spend_within_the_limit_whatever_the_concurrency():
    """64 calls at once, each costing anything up to its worst case: the spend and what is in flight never pass
    the limit, and the limit stops the work once no further worst case fits."""

    async def scenario() -> tuple[SpendLimit, float, int]:
        limit = SpendLimit(1.0, scope="test")
        rng = random.Random(7)
        highest, started = 0.0, 0

        async def call() -> None:
            nonlocal highest, started
            worst = rng.uniform(0.01, 0.05)
            if not await limit.reserve(worst):
                return
            started += 1
            highest = max(highest, limit.spent + limit.in_flight)
            await asyncio.sleep(rng.uniform(0, 0.003))
            limit.settle(worst, rng.uniform(0, worst))

        await asyncio.gather(*(call() for _ in range(400)))
        return limit, highest, started

    limit, highest, started = asyncio.run(scenario())
    assert limit.stopped and highest <= 1.0 and limit.spent <= 1.0
    assert limit.calls == started < 400 and limit.spent > 0.9  # it spends up to the limit, not far below it


def _audit_stops_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str], corpus: str,
                             contracts: int | None, runs: str, concurrency: int) -> None:
    root = str(tmp_path / "home")
    params = json.dumps({**FAST, "concurrency": concurrency, "max_output_tokens": 1024})
    with MeteredServer() as server:
        assert _cli("--home", root, "ingest", "cuad", corpus) == 0
        assert _cli("--home", root, "models", "add", "m", "--provider", "openai", "--model-id", TABLE_MODEL,
                    "--base-url", server.base_url, "--params", params) == 0
        home = Home.resolve(root)
        chosen = select_contracts(home, contracts)
        n_runs = len(runs.split(","))
        whole = _extraction_bill(chosen, n_runs)
        limit = round(whole / 2, 4)
        selection = ["--contracts", str(contracts)] if contracts else []
        capsys.readouterr()
        assert _cli("--home", root, "audit", "--models", "m", "--runs", runs, *selection,
                    "--max-cost", str(limit)) == LIMIT_EXIT_CODE
        line = _stopped_line(capsys.readouterr().err, limit)
        spent, made = server.spent(), server.count()
        assert 0 < spent <= limit and 0 < made < len(chosen) * n_runs
        (stop,) = _stops(home)
        assert stop.limit_usd == limit and stop.spent_usd <= limit and stop.calls == made
        assert stop.left == len(chosen) * n_runs - made and f"{made:,} call(s) made, {stop.left:,} left" in line

        assert _cli("--home", root, "audit", "--models", "m", "--runs", runs, *selection,
                    "--max-cost", str(round(2 * whole, 4))) == 0
        # The rerun made the rest of the calls, none of them again.
        calls = _calls(home)
        assert server.count() == len(chosen) * n_runs == len(calls) == len({c.request_key for c in calls})
        assert server.spent() - spent <= 2 * whole


def test_a_limit_stops_the_demo_audit_at_or_under_it_and_a_rerun_with_a_higher_one_completes(tmp_path, capsys):
    _audit_stops_and_resumes(tmp_path, capsys, str(DEMO_DIR), None, "1,2", concurrency=4)


def test_a_limit_stops_an_audit_of_200_cuad_contracts_at_concurrency_16(tmp_path, capsys, cuad_dir):
    _audit_stops_and_resumes(tmp_path, capsys, str(cuad_dir), 200, "1", concurrency=16)  # skipped without CUAD


def test_a_limit_stops_a_suite_audit_and_the_rerun_completes(tmp_path, capsys):
    root = str(tmp_path / "home")
    items = self_built_items().items
    long = 20_000  # a model that writes long answers: each answer costs most of its worst case
    params = json.dumps({**FAST, "concurrency": 8})
    with MeteredServer(completion_tokens=long) as server:
        assert _cli("--home", root, "ingest", "insufficiency") == 0
        assert _cli("--home", root, "models", "add", "m", "--provider", "openai", "--model-id", TABLE_MODEL,
                    "--base-url", server.base_url, "--params", params) == 0
        whole = len(items) * bill([{"content": "x" * 400}], None, long)  # about what every answer costs
        limit = round(whole / 2, 4)
        capsys.readouterr()
        assert _cli("--home", root, "audit", "--suite", "insufficiency", "--models", "m",
                    "--max-cost", str(limit)) == LIMIT_EXIT_CODE
        _stopped_line(capsys.readouterr().err, limit)
        spent, made = server.spent(), server.count()
        assert 0 < spent <= limit and 0 < made < len(items)
        assert _cli("--home", root, "audit", "--suite", "insufficiency", "--models", "m",
                    "--max-cost", str(round(4 * whole, 4))) == 0
        answers = [s.messages for s in server.served]
        assert len(answers) == len(items) == len(set(answers))  # every item asked once over both runs
    home = Home.resolve(root)
    (stop,) = _stops(home)
    assert stop.spent_usd <= limit and stop.calls == made


def test_a_limit_stops_a_debate_and_the_rerun_completes_without_repeating_a_role_call(tmp_path, capsys):
    root = str(tmp_path / "home")
    params = json.dumps({**FAST, "concurrency": 4, "max_output_tokens": 512})
    with MeteredServer() as server:
        assert _cli("--home", root, "ingest", "cuad", str(DEMO_DIR)) == 0
        assert _cli("--home", root, "subset", "create", "two", "--size", "2", "--seed", "1") == 0
        assert _cli("--home", root, "models", "add", "local", "--provider", "openai", "--model-id", TABLE_MODEL,
                    "--base-url", server.base_url, "--params", params) == 0
        # The base audit's partition runs without the metrics job `lhl audit` runs after them: the debate that
        # completes builds the SQL models over both (a build here would only cost its ~420 steps).
        assert run_audit(Home.resolve(root), get_suite("clause"), ["local"], [1], AuditOptions(subset="two"),
                         say=lambda _: None, metrics=False) == 0
        before, paid = server.count(), server.spent()
        limit = 0.01
        capsys.readouterr()
        assert _cli("--home", root, "debate", "--backbone", "local", "--runs", "1", "--subset", "two",
                    "--max-cost", str(limit)) == LIMIT_EXIT_CODE
        _stopped_line(capsys.readouterr().err, limit)
        spent, made = server.spent() - paid, server.count() - before
        assert 0 < spent <= limit and made > 0
        assert _cli("--home", root, "debate", "--backbone", "local", "--runs", "1", "--subset", "two",
                    "--max-cost", "5") == 0
        roles = [s.messages for s in server.served[before:]]
    assert len(roles) == len(set(roles)) and len(roles) > made  # every role call asked once over both runs
    (stop,) = _stops(Home.resolve(root))
    assert stop.spent_usd <= limit and stop.calls == made


def test_a_registered_limit_caps_each_audit_round_of_the_model_without_a_flag(tmp_path, capsys):
    """`params.audit.max_cost_usd` is the limit of every audit round launched without --max-cost (the recurring
    audit's included): here half of what the round costs, less than one call's worst case, so no call starts."""
    root = str(tmp_path / "home")
    with MeteredServer() as server:
        assert _cli("--home", root, "ingest", "cuad", str(DEMO_DIR)) == 0
        home = Home.resolve(root)
        limit = round(_extraction_bill(select_contracts(home), 1) / 24, 6)
        params = json.dumps({**FAST, "concurrency": 4, "audit": {"max_cost_usd": limit}})
        assert _cli("--home", root, "models", "add", "m", "--provider", "openai", "--model-id", TABLE_MODEL,
                    "--base-url", server.base_url, "--params", params) == 0
        capsys.readouterr()
        assert _cli("--home", root, "audit", "--models", "m") == LIMIT_EXIT_CODE
        assert "(m run 1)" in _stopped_line(capsys.readouterr().err, limit)
        assert server.count() == 0
    (stop,) = _stops(home)
    assert (stop.source, stop.scope, stop.calls, stop.spent_usd, stop.left) == ("registered", "m run 1", 0, 0.0, 12)
