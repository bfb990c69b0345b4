"""The toy suite's stages: one call per contract naming its parties, then their deterministic scores (named by
`suite.py`, imported when a stage runs)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pydantic import ValidationError

from lhl_platform.calls.ledger import Answer, CallLedger, Unusable, Who, recorded_calls
from lhl_platform.calls.policy import CommitPolicy, stage_writer
from lhl_platform.calls.single import StageRun
from lhl_platform.corpus.store import active_corpus_id, load_corpus
from lhl_platform.domain.models import Contract
from lhl_platform.events.log import StreamWriter
from lhl_platform.events.payloads import ModelCall
from lhl_platform.factory import build_model
from lhl_platform.progress import CallTally
from lhl_platform.providers.base import ModelRequest, close_model
from lhl_platform.registry import get_model
from lhl_platform.suites.contract import StageContext, StageResult
from lhl_platform.suites.kit import PartitionCalls, model_run
from tests.toy_suite.events import PartiesNamed, PartiesScored, ToyScope
from tests.toy_suite.task import PartiesOutput, PartiesTask, messages

STAGE = "toy-parties"


def named_stream(model: str, run: int) -> str:
    return f"toy.model={model}.run={run}"


@dataclass
class PartiesStage(PartitionCalls[Contract]):
    name: str = STAGE
    policy: CommitPolicy = CommitPolicy(units=8)

    def key(self, contract: Contract) -> str:
        return f"toy.named:{self.model}:{self.run}:{contract.contract_id}"

    def request(self, contract: Contract) -> ModelRequest:
        task = PartiesTask(contract_id=contract.contract_id, contract_text=contract.text)
        return ModelRequest(provider=self.chat.provider, model_id=self.chat.model_id, prompt_version="toy-v1",
                            run=self.run, params=self.chat.request_params(), messages=messages(task), task=task)

    def who(self, contract: Contract) -> Who:
        return Who(stage=STAGE, subject=contract.contract_id, item=contract.contract_id)

    def parse(self, contract: Contract, call: ModelCall, validated: bool) -> PartiesOutput:
        try:
            return PartiesOutput.model_validate(call.content or {})
        except ValidationError as exc:
            raise Unusable(str(exc.errors()[0]["msg"])) from None

    def record(self, writer: StreamWriter, contract: Contract, call: ModelCall, parsed: PartiesOutput) -> None:
        writer.append("toy.named", contract.contract_id, self.key(contract), PartiesNamed(
            model=self.model, run=self.run, contract_id=contract.contract_id, parties=parsed.parties,
            request_key=call.request_key))

    def reject(self, writer: StreamWriter, contract: Contract, answer: Answer[PartiesOutput], stage: str) -> None:
        return None  # the failed call is recorded by the ledger; the contract stays unnamed until a re-run


def toy_parties(ctx: StageContext) -> StageResult:
    model, run = model_run(ctx)
    corpus_id = active_corpus_id(ctx.home)
    contracts = sorted(load_corpus(ctx.home, corpus_id).contracts, key=lambda c: c.contract_id)
    chat = build_model(get_model(ctx.home, model), run=run)
    tally = CallTally()
    stream = named_stream(model, run)

    async def go() -> int:
        try:
            with stage_writer(ctx.home.events, stream, PartiesStage.policy, durable=False) as writer:
                writer.append("toy.scope", f"{model}/{run}", f"toy.scope:{model}:{run}:{corpus_id}", ToyScope(
                    model=model, run=run, item_set=corpus_id, items=[c.contract_id for c in contracts]))
                ledger = CallLedger(model, recorded_calls(ctx.home.events, stream), writer.append, fresh=tally)
                await StageRun(PartiesStage(model, run, chat), writer, ledger, chat).run(
                    contracts, concurrency=4, durable=False)
                return ledger.reused.calls
        finally:
            await close_model(chat)

    reused = asyncio.run(go())
    return StageResult(metadata={"contracts": len(contracts), "calls": tally.calls, "reused_calls": reused})


def toy_scores(ctx: StageContext) -> StageResult:
    """Deterministic scoring: a named party counts when the contract's annotated Parties spans hold it."""
    model, run = model_run(ctx)
    spans = {r.contract_id: " ".join(r.spans).lower() for r in load_corpus(ctx.home).oracle
             if r.clause_type == "Parties"}
    named = [e.data_as(PartiesNamed) for e in ctx.home.events.read(named_stream(model, run))
             if e.type == "toy.named"]
    with ctx.home.events.writer(f"toy-score.model={model}.run={run}") as writer:
        for n in named:
            matched = sum(p.lower() in spans.get(n.contract_id, "") for p in n.parties)
            writer.append("toy.scored", n.contract_id, f"toy.scored:{n.request_key}", PartiesScored(
                model=n.model, run=n.run, contract_id=n.contract_id, named=len(n.parties), matched=matched))
    return StageResult(metadata={"scored": len(named)})
