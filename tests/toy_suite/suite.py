"""The toy suite's stages and its description; `SUITE` is all the platform needs."""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError
from sqlmodel import SQLModel

from lhl_platform.calls.ledger import Answer, CallLedger, Unusable, Who, recorded_calls
from lhl_platform.calls.policy import CommitPolicy, stage_writer
from lhl_platform.calls.single import StageRun
from lhl_platform.corpus.store import active_corpus_id, load_corpus
from lhl_platform.domain.models import Contract
from lhl_platform.events.log import StreamWriter
from lhl_platform.events.payloads import ModelCall
from lhl_platform.factory import build_model
from lhl_platform.home import Home
from lhl_platform.progress import CallTally
from lhl_platform.providers.base import ModelRequest, close_model
from lhl_platform.registry import get_model
from lhl_platform.suites.contract import (
    Command,
    CompareMetric,
    Job,
    Section,
    Stage,
    StageContext,
    StageResult,
    Suite,
)
from lhl_platform.suites.kit import PartitionCalls, model_run, partition_tags
from lhl_platform.warehouse.suite_scope import SuiteScope
from tests.toy_suite import events  # noqa: F401  (registers the toy event types)
from tests.toy_suite.events import PartiesNamed, PartiesScored, ToyScope
from tests.toy_suite.task import OFFLINE_MODELS, PartiesOutput, PartiesTask, messages

STAGE = "toy-parties"
SQL = Path(__file__).parent / "sql"


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


class ToyRow(SQLModel):
    """`toy_leaderboard`: one row per model."""

    model: str
    runs: int
    contracts: int
    named: int
    matched: int
    precision: float | None
    calls: int
    cost_usd: float


def _define_named(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="a model the toy suite audited")


def cmd_named(args: argparse.Namespace, home: Home) -> int:
    """`lhl toy named MODEL`: how many contracts the model named the parties of (read from the log, so the toy
    event types must be registered when it runs)."""
    named = [e.data_as(PartiesNamed) for e in home.events.read() if e.type == "toy.named"]
    print(f"{args.model}: parties named in {sum(n.model == args.model for n in named)} contracts")
    return 0


SUITE = Suite(
    name="toy",
    title="Party names (toy)",
    description="Name the parties of each contract; a named party counts when the annotated Parties spans hold it.",
    stages=(
        Stage("toy_parties", "One call per contract naming its parties.", toy_parties, after=("contracts",),
              spends=True, feeds=("toy.scope", "toy.named")),
        Stage("toy_scores", "The named parties checked against the oracle.", toy_scores, kind="score",
              after=("toy_parties", "oracle"), feeds=("toy.scored",)),
    ),
    jobs=(Job("toy_partition", ("toy_parties", "toy_scores"), "Name and score one (model, run) partition.",
              tags=partition_tags("toy")),),
    sql=SQL,
    sections=(Section("leaderboard", "Leaderboard", ToyRow,
                      lambda con: [ToyRow(**dict(zip([d[0] for d in cur.description], row, strict=True)))
                                   for cur in [con.execute("select * from toy_leaderboard")]
                                   for row in cur.fetchall()]),),
    compare=(CompareMetric.ratio("precision", "matched", "named"),),
    units="toy_units",
    offline_models=OFFLINE_MODELS,  # type: ignore[arg-type]
    scope=SuiteScope(suite="toy", cells="toy_cells"),
    commands=(Command(("toy", "named"), "how many contracts a model named the parties of", _define_named,
                      cmd_named),),
)
