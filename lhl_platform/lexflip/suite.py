"""LexFlip as the platform runs it: every registered judge on the dissociation suite of the active corpus.
Registered in `lhl_platform.catalog`."""

from __future__ import annotations

from lhl_platform.home import Home
from lhl_platform.lexflip.events import JudgeValidated, ValidationEvent
from lhl_platform.lexflip.sources import SOURCES
from lhl_platform.suites.contract import CheckSpec, ItemSet, Job, Stage, Suite
from lhl_platform.suites.refs import lazy
from sql import SQL_DIR

stages = lazy("lhl_platform.lexflip.stages")  # its stage's function, imported when the stage runs

JUDGES_JOB = "judges"


def _item_sets(home: Home) -> list[ItemSet]:
    """The dissociation suites judges were validated on: derived from a corpus's own annotated spans."""
    from lhl_platform.lexflip.validate import validation_stream

    seen: dict[str, ItemSet] = {}
    streams = [s for s in home.events.streams() if s.startswith(validation_stream(""))]
    for event in (e for stream in streams for e in home.events.read(stream)):
        if event.type != ValidationEvent.VALIDATED:
            continue
        v = event.data_as(JudgeValidated)
        seen[v.suite_digest] = ItemSet(id=v.suite_digest, name=f"lexflip {v.suite_version}", items=v.items,
                                       source=f"edits of corpus {v.corpus_id}'s annotated spans, seed {v.seed}",
                                       self_built=True)
    return list(seen.values())


SUITE = Suite(
    name="lexflip",
    title="Judge validation (LexFlip)",
    description="Is a judge or metric reading legal force? Every judge on edits of the corpus's own annotated "
                "spans: identical, force-changing, force-keeping and unrelated pairs.",
    stages=(
        Stage("judge_validation", "Every registered judge on the dissociation suite of the active corpus: share "
              "judged as expected per family (identical, force changed, force kept), named in-sample where the "
              "judge's rules were written from it, and apart on every held-out set of CUAD rewrites (self-built), "
              "which alone validate a judge. LLM judges are called once per item ever (answers are events).",
              stages.judge_validation, kind="score",
              partitioning="none",
              after=("oracle",), checks=(CheckSpec("primary_judge_validated",
                                                    "the primary judge passes every held-out set"),),
              spends=True, group="judges", feeds=("judge.validation_item", "judge.validation_score",
                                                  "judge.validated")),
    ),
    jobs=(Job(JUDGES_JOB, ("judge_validation", "judge_agreement"),
              "Validate every registered judge on held-out evidence (its in-sample dissociation suite reported "
              "apart); measure agreement with the primary judge.", partitioning="none"),),
    sql=SQL_DIR / "lexflip",
    sources=SOURCES,
    item_sets=_item_sets,
)
