"""The toy suite's description; `SUITE` is all the platform needs (its stages load when they run)."""

from __future__ import annotations

import argparse
from pathlib import Path

from sqlmodel import SQLModel

from lhl_platform.home import Home
from lhl_platform.suites.contract import (
    Command,
    CompareMetric,
    Job,
    Section,
    Stage,
    Suite,
)
from lhl_platform.suites.kit import partition_tags
from lhl_platform.suites.refs import lazy
from lhl_platform.warehouse.scope import SuiteScope
from tests.toy_suite import events  # noqa: F401  (registers the toy event types)
from tests.toy_suite.events import PartiesNamed
from tests.toy_suite.task import OFFLINE_MODELS

SQL = Path(__file__).parent / "sql"
stages = lazy("tests.toy_suite.stages")  # the stages' functions, imported when a stage runs


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
        Stage("toy_parties", "One call per contract naming its parties.", stages.toy_parties, after=("contracts",),
              spends=True, feeds=("toy.scope", "toy.named")),
        Stage("toy_scores", "The named parties checked against the oracle.", stages.toy_scores, kind="score",
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
