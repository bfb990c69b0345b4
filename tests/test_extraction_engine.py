"""Bad input is a recorded event with a reason; every other instance proceeds; the row count tells the truth."""

import asyncio

from lhl_platform.clause.checks import completeness
from lhl_platform.clause.extraction.engine import extract_partition, extraction_stream
from lhl_platform.corpus.demo import load_demo_corpus
from lhl_platform.corpus.store import save_corpus
from lhl_platform.domain.models import ModelSpec
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.providers.base import ModelRequest, ModelResponse
from lhl_platform.warehouse.build import partition_connection

SPEC = ModelSpec(name="scripted", provider="offline", model_id="lexical")


class ScriptedModel:
    """A stand-in *model* (not our wrapper): answers every clause absent, misbehaving on chosen contracts."""

    provider = "offline"
    model_id = "scripted"

    def __init__(self, behaviour):
        self.behaviour = behaviour
        self.calls = 0

    def request_params(self):
        return {"algorithm": "scripted-v1"}

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        contract = request.task.contract_id
        mode = self.behaviour.get(contract)
        if mode == "raise":
            raise TimeoutError("provider timed out after 60s")
        if mode == "garbage":
            return ModelResponse(content={"clauses": "not a list"})
        clauses = [{"clause_type": c, "present": False, "quotes": []} for c in CLAUSE_TYPES]
        if mode == "partial":
            clauses = clauses[:30]
        return ModelResponse(content={"clauses": clauses})


def _setup(tmp_path):
    home = Home.resolve(tmp_path).ensure()
    corpus = load_demo_corpus()
    corpus_id = save_corpus(home, corpus, "demo")
    return home, corpus, corpus_id


def test_failures_become_events_and_missing_rows_named_by_contract(tmp_path):
    home, corpus, corpus_id = _setup(tmp_path)
    ids = [c.contract_id for c in corpus.contracts]
    model = ScriptedModel({ids[0]: "raise", ids[1]: "garbage", ids[2]: "partial"})
    summary = asyncio.run(extract_partition(home.events, SPEC, 1, corpus_id, corpus.contracts, model))
    assert summary.instances == 41 * (len(ids) - 3) + 30
    assert {c for c, _ in summary.failures} == {ids[0], ids[1]}
    reasons = dict(summary.failures)
    assert "TimeoutError" in reasons[ids[0]] and "unparseable output at clauses" in reasons[ids[1]]
    events = home.events.read(extraction_stream("scripted", 1))
    assert sum(e.type == "extraction.failed" for e in events) == 2
    assert sum(e.type == "extraction.incomplete" for e in events) == 1
    con = partition_connection(home, [extraction_stream("scripted", 1)])
    result = completeness(con, "scripted", 1)
    assert not result.passed
    assert result.metadata["missing_rows"] == 41 + 41 + 11
    named = " ".join(result.metadata["missing_by_contract"])
    assert all(cid in named for cid in ids[:3])


def test_rerun_repeats_no_completed_call_and_retries_failures(tmp_path):
    home, corpus, corpus_id = _setup(tmp_path)
    ids = [c.contract_id for c in corpus.contracts]
    first = ScriptedModel({ids[0]: "raise"})
    asyncio.run(extract_partition(home.events, SPEC, 1, corpus_id, corpus.contracts, first))
    assert first.calls == len(ids)
    second = ScriptedModel({})
    summary = asyncio.run(extract_partition(home.events, SPEC, 1, corpus_id, corpus.contracts, second))
    assert second.calls == 1  # only the contract that failed is called again
    assert summary.skipped_contracts == len(ids) - 1 and summary.instances == 41
    con = partition_connection(home, [extraction_stream("scripted", 1)])
    assert completeness(con, "scripted", 1).passed


def test_byte_identical_contracts_are_two_calls_with_two_records(tmp_path, mini_layout):
    # CUAD itself holds one byte-identical pair: both calls are paid, so both must be recorded and costed.
    from lhl_platform.corpus.cuad import load_master_layout

    spans = {"Governing Law": ["This Agreement is governed by the laws of Ohio."]}
    corpus = load_master_layout(mini_layout([("twin_a.pdf", "twin_a.txt", spans), ("twin_b.pdf", "twin_b.txt", spans)]))
    assert corpus.contracts[0].text == corpus.contracts[1].text
    home = Home.resolve(tmp_path / "h").ensure()
    corpus_id = save_corpus(home, corpus, "twins")
    model = ScriptedModel({})
    asyncio.run(extract_partition(home.events, SPEC, 1, corpus_id, corpus.contracts, model))
    calls = [e for e in home.events.read(extraction_stream("scripted", 1)) if e.type == "model.call"]
    assert model.calls == 2 and len(calls) == 2
    assert {e.subject for e in calls} == {c.contract_id for c in corpus.contracts}
