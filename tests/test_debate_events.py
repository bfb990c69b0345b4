"""A debate partition is event-sourced: every call, turn, route, gate and outcome is an event, a debate replays
turn by turn from its events, and a partition resumed after a crash repeats no completed call."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest

from lhl_platform.clause.debate.config import GENERIC
from lhl_platform.clause.debate.engine import (
    debate_stream,
    read_events,
    read_outcomes,
    read_turns,
    recorded_calls,
    run_debate_partition,
)
from lhl_platform.clause.debate.events import (
    EVENT_PAYLOADS,
    DebateFailed,
    DebateOutcome,
    DebateScope,
    DebateTurn,
    RouteDecision,
)
from lhl_platform.clause.debate.offline import OfflineDebateModel
from lhl_platform.clause.debate.types import Role, Route
from lhl_platform.clause.extraction.simulated import PROFILES, SimulatedExtractor
from lhl_platform.clause.extraction.task import ExtractTask
from lhl_platform.corpus.demo import load_demo_corpus
from lhl_platform.domain.models import Contract, Extraction
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.events.kinds import EventPayloadError, kind_of
from lhl_platform.events.log import EventLog
from lhl_platform.events.payloads import EventType, ModelCall
from lhl_platform.providers.base import ModelRequest, ModelResponse
from tests.test_debate_machine import CAP, CASES, CONTRACT, ScriptedRoles


def _baselines() -> list[Extraction]:
    return [Extraction(model="base", run=1, contract_id="c1", clause_type="Cap On Liability", present=True,
                       quotes=(CAP,)),
            Extraction(model="base", run=1, contract_id="c1", clause_type="Audit Rights", present=False)]


def test_every_turn_route_and_outcome_is_an_event_and_an_instance_replays_turn_by_turn(tmp_path):
    log, stream = EventLog(tmp_path), debate_stream("base", 1, GENERIC)
    model = ScriptedRoles(CASES[1].script)  # disagreement in round 1, agreement in round 2
    summary = asyncio.run(run_debate_partition(log, stream, "base", 1, [CONTRACT], _baselines(), model, GENERIC,
                                               clause_types=("Cap On Liability", "Audit Rights")))
    assert (summary.instances, summary.decided, summary.missing_baselines) == (2, 2, 0)
    assert summary.calls == len(model.asked) == 12 and summary.reused_calls == 0
    assert summary.input_tokens == 1200 and summary.rounds == 4 and summary.consensus == 2

    events = read_events(log, stream, "c1", "Cap On Liability")
    steps = [(e.role, e.round) if isinstance(e, DebateTurn) else (e.route, e.round) if isinstance(e, RouteDecision)
             else type(e).__name__ for e in events]
    assert steps == [(Role.SKEPTIC, 1), (Role.SUPPORTER, 1), (Route.NEXT_ROUND, 1), (Role.SKEPTIC, 2),
                     (Role.SUPPORTER, 2), (Route.VERIFY, 2), (Role.VERIFIER, 2), (Role.JUDGE, 2), "DebateOutcome"]
    outcome = events[-1]
    assert isinstance(outcome, DebateOutcome)
    assert outcome.config == GENERIC and outcome.config_hash == GENERIC.hash and outcome.config_name == "generic"

    # Each turn names the recorded call that produced it; the call records are the log's own ModelCall.
    calls = {e.data_as(ModelCall).request_key: e for e in log.read(stream) if e.type == EventType.MODEL_CALL}
    turns = read_turns(log, stream, "c1", "Cap On Liability")
    assert all(t.request_key in calls for t in turns)
    assert calls[turns[0].request_key].subject == "c1/Cap On Liability#1:skeptic"
    scope = [e for e in read_events(log, stream) if isinstance(e, DebateScope)]
    assert len(scope) == 1 and scope[0].contract_ids == ("c1",) and scope[0].config_hash == GENERIC.hash


def test_a_finished_partition_rerun_calls_nothing_and_records_nothing_new(tmp_path):
    log, stream = EventLog(tmp_path), "debate.test"
    asyncio.run(run_debate_partition(log, stream, "base", 1, [CONTRACT], _baselines(), ScriptedRoles(CASES[0].script),
                                     GENERIC, clause_types=("Cap On Liability", "Audit Rights")))
    before = len(log.read(stream))
    again = ScriptedRoles(CASES[0].script)
    summary = asyncio.run(run_debate_partition(log, stream, "base", 1, [CONTRACT], _baselines(), again, GENERIC,
                                               clause_types=("Cap On Liability", "Audit Rights")))
    assert again.asked == [] and summary.already_decided == 2 and summary.decided == 0
    assert len(log.read(stream)) == before


def test_instances_without_a_baseline_are_counted_not_debated(tmp_path):
    summary = asyncio.run(run_debate_partition(EventLog(tmp_path), "debate.test", "base", 1, [CONTRACT],
                                               _baselines()[:1], ScriptedRoles(CASES[0].script), GENERIC))
    assert summary.instances == 1 and summary.missing_baselines == len(CLAUSE_TYPES) - 1


def test_the_debate_registers_its_own_event_types_and_the_log_refuses_unregistered_ones(tmp_path):
    assert all(kind_of(t).payload is cls and kind_of(t).owner == "lhl_platform.clause.debate.events"
               for t, cls in EVENT_PAYLOADS.items())
    with EventLog(tmp_path).writer("s") as writer, pytest.raises(EventPayloadError, match=r"debate\.nonesuch"):
        writer.append("debate.nonesuch", "x", "k", _baselines()[0])


# Resuming ------------------------------------------------------------------------------------------

class Interruptible:
    """The offline debate model, yielding to the event loop on every call (as a network call would), and
    counting the calls it completed. After `stop_after` completions it signals, so the test can kill the run."""

    provider = "offline"
    model_id = "debate"

    def __init__(self, stop_after: int | None = None, fail_role: str | None = None) -> None:
        self.inner = OfflineDebateModel()
        self.completed: list[str] = []
        self.stop_after = stop_after
        self.fail_role = fail_role
        self.reached = asyncio.Event()

    def request_params(self) -> dict[str, Any]:
        return self.inner.request_params()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(0)
        if self.fail_role is not None and request.task.kind == self.fail_role:
            raise ConnectionError("provider down")
        response = await self.inner.complete(request)
        self.completed.append(request.key())
        if self.stop_after is not None and len(self.completed) >= self.stop_after:
            self.reached.set()
        return response


def _demo_partition() -> tuple[list[Contract], list[Extraction]]:
    corpus = load_demo_corpus()
    contracts = list(corpus.contracts[:2])
    simulator = SimulatedExtractor(PROFILES["inventor"], corpus.oracle, 1)
    baselines = []
    for contract in contracts:
        task = ExtractTask(contract_id=contract.contract_id, contract_text=contract.text, clause_types=CLAUSE_TYPES)
        for a in simulator.extract(task).clauses:
            baselines.append(Extraction(model="simulated-inventor", run=1, contract_id=contract.contract_id,
                                        clause_type=a.clause_type, present=a.present, quotes=tuple(a.quotes)))
    return contracts, baselines


def _outcomes(log: EventLog, stream: str) -> dict[tuple[str, str], dict[str, Any]]:
    return {(o.contract_id, o.clause_type): o.model_dump(exclude={"calls", "reused_calls"})
            for o in read_outcomes(log, stream)}


def test_a_partition_killed_mid_run_resumes_without_repeating_a_completed_call(tmp_path: Path):
    contracts, baselines = _demo_partition()
    stream = debate_stream("simulated-inventor", 1, GENERIC)

    clean_log = EventLog(tmp_path / "clean")
    clean = Interruptible()
    asyncio.run(run_debate_partition(clean_log, stream, "simulated-inventor", 1, contracts, baselines, clean,
                                     GENERIC, concurrency=3))
    assert len(clean.completed) == len(set(clean.completed)) > 150

    log = EventLog(tmp_path / "crashed")
    first = Interruptible(stop_after=len(clean.completed) // 2)

    async def killed() -> None:
        run = asyncio.create_task(run_debate_partition(log, stream, "simulated-inventor", 1, contracts, baselines,
                                                       first, GENERIC, concurrency=3))
        await first.reached.wait()
        run.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await run

    asyncio.run(killed())
    decided_before = len(read_outcomes(log, stream))
    assert 0 < decided_before < len(baselines), "the kill must land mid-partition"
    assert set(recorded_calls(log, stream)) == set(first.completed), "every completed call was recorded"

    second = Interruptible()
    summary = asyncio.run(run_debate_partition(log, stream, "simulated-inventor", 1, contracts, baselines, second,
                                               GENERIC, concurrency=3))
    assert not set(first.completed) & set(second.completed), "no completed call is made again"
    assert set(first.completed) | set(second.completed) == set(clean.completed)
    assert summary.already_decided == decided_before and summary.decided == len(baselines) - decided_before
    assert summary.reused_calls == len(set(first.completed)) - sum(
        o.calls for o in read_outcomes(log, stream)[:decided_before])
    assert _outcomes(log, stream) == _outcomes(clean_log, stream)


def test_a_failed_instance_is_recorded_and_a_rerun_finishes_it_reusing_its_completed_calls(tmp_path: Path):
    contracts, baselines = _demo_partition()
    log, stream = EventLog(tmp_path), "debate.test"
    few = [b for b in baselines if b.clause_type in ("Cap On Liability", "Governing Law")]
    failing = Interruptible(fail_role="debate.judge")
    summary = asyncio.run(run_debate_partition(log, stream, "sim", 1, contracts, few, failing, GENERIC))
    assert summary.decided == 0 and len(summary.failures) == len(few)
    failed = [e for e in read_events(log, stream) if isinstance(e, DebateFailed)]
    assert {(f.role, f.stage) for f in failed} == {(Role.JUDGE, "call")}
    assert sum(e.type == EventType.MODEL_CALL_FAILED for e in log.read(stream)) == len(few)

    healthy = Interruptible()
    summary = asyncio.run(run_debate_partition(log, stream, "sim", 1, contracts, few, healthy, GENERIC))
    assert summary.decided == len(few) and not summary.failures
    assert len(healthy.completed) == len(few), "only the Judge's calls are made again"
    assert summary.reused_calls == len(failing.completed)
    outcomes = read_outcomes(log, stream)
    assert all(o.reused_calls == o.calls - 1 for o in outcomes)
