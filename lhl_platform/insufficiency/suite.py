"""InsufficiencyBench as the platform runs it: does a legal assistant notice what a query leaves out? Each model
under test answers every query of an item set in free text; a judge (the offline cue judge unless another is
named) makes the seed's two calls per answer; the marts score the judgments exactly as the seed. Registered in
`lhl_platform.catalog`; importing this module registers the suite's event types with the log."""

from __future__ import annotations

from lhl_platform.domain.models import ModelSpec
from lhl_platform.events.kinds import register_events
from lhl_platform.home import Home
from lhl_platform.insufficiency import lineage, report, scoring
from lhl_platform.insufficiency.events import EVENT_PAYLOADS
from lhl_platform.insufficiency.models import CUE_JUDGE, OFFLINE_MODELS
from lhl_platform.insufficiency.monitor import MONITOR
from lhl_platform.insufficiency.responders import GOLD_READER, INDISCRIMINATE_HEDGING, PREMATURE_CLOSURE
from lhl_platform.insufficiency.store import item_set_summaries
from lhl_platform.insufficiency.verdict import VERDICT_RULE
from lhl_platform.report.reporting import SectionReporting
from lhl_platform.suites.contract import (
    Agreement,
    CheckSpec,
    CompareMetric,
    Demo,
    ItemSet,
    Job,
    MartCheck,
    Section,
    Stage,
    Suite,
)
from lhl_platform.suites.kit import partition_tags
from lhl_platform.suites.refs import lazy
from lhl_platform.warehouse.scope import SuiteScope
from sql import SQL_DIR

register_events(EVENT_PAYLOADS, owner="lhl_platform.insufficiency.events")

stages = lazy("lhl_platform.insufficiency.stages")  # its stages' functions and configs, imported on use

NAME = "insufficiency"
PARTITION_JOB = "insufficiency_partition"
GOLD_JOB = "insufficiency_gold"


_tags = partition_tags(NAME)


def _item_sets(home: Home) -> list[ItemSet]:
    return [ItemSet(id=s.item_set_id, name=s.name, items=s.base_items + s.variants, source=s.source,
                    self_built=s.provenance == "self-built") for s in item_set_summaries(home).values()]


SUITE = Suite(
    name=NAME,
    title="InsufficiencyBench",
    description="Does a legal assistant notice what a query leaves out? Free-text answers to deficient and "
                "complete legal queries, judged by two calls per answer (identification; explanation and safety): "
                "per-item mean F2, precision, recall, hedge rate, explanation accuracy, safety and over-flag "
                "(seed 003).",
    stages=(
        Stage("insufficiency_items", "The InsufficiencyBench item set: the active one (ingested last), or the "
              "shipped self-built set (labelled self-built in every report).", stages.insufficiency_items,
              kind="items", partitioning="none", config=stages.ItemsConfig, group=NAME,
              feeds=("insufficiency.items_ingested", "insufficiency.item")),
        Stage("insufficiency_responses", "The model under test answers every query: the seed's fixed system prompt, "
              "one user message, free text, max output 32,768 tokens; refusals, truncations and errors are "
              "recorded failures.", stages.insufficiency_responses, config=stages.ResponsesConfig,
              after=("insufficiency_items",),
              checks=(CheckSpec("every_item_answered", "every item of the set has a response"),),
              spends=True, group=NAME,
              feeds=("insufficiency.scope", "insufficiency.response", "insufficiency.response_failed")),
        Stage("insufficiency_judgments", "Two judge calls per response (identification; explanation and safety), "
              "strictly validated; the judge is validated on the hand-labelled set first.",
              stages.insufficiency_judgments, kind="score", config=stages.JudgmentsConfig,
              after=("insufficiency_responses", "insufficiency_items"),
              checks=(CheckSpec("every_response_judged", "every response has a judgment by the judge"),
                      CheckSpec("judge_validated", "the judge passes the hand-labelled validation set")),
              spends=True, group=NAME,
              feeds=("insufficiency.judgment", "insufficiency.judgment_failed", "insufficiency.judge_validation_item",
                     "insufficiency.judge_validated")),
        Stage("insufficiency_gold_versions", "The gold versions of the active item set: version 1 as ingested, "
              "each later one made by `lhl review import` (who reviewed, how many rows of the sheet, the decisions' "
              "events, a digest of the gold); the data version changes with every new version.",
              lineage.insufficiency_gold_versions, kind="derived", partitioning="none",
              after=("insufficiency_items",), eager=True, group=NAME, feeds=lineage.FEEDS),
    ),
    jobs=(Job(PARTITION_JOB, ("insufficiency_responses", "insufficiency_judgments"),
              "Answer and judge one (model, run) partition of InsufficiencyBench.", tags=_tags),
          Job(GOLD_JOB, ("insufficiency_gold_versions",), "Show the active item set's gold versions (run by `lhl "
              "review import` once it made one).", partitioning="none")),
    sql=SQL_DIR / NAME,
    sections=(
        Section("item_set", "Item set", report.InsufficiencyItemSetRow, report.item_set_rows,
                note="`about` says what the set is, as recorded when it was ingested. Gold elements are the "
                     "required missing elements (the seed's M_v); non-required ones are shown, never scored."),
        Section("leaderboard", "Leaderboard", scoring.LeaderboardRow, report.leaderboard_rows,
                note="Means of per-item values over the variants (F2, precision over items with TP+FP > 0, recall, "
                     "hedge, ExplAcc over items with an identified element, safety) and over the base queries "
                     "(over-flag); gold = the required missing elements. F2 intervals: 95% bootstrap over base "
                     "queries (a base query is drawn with all its variants and runs: variants of one base are not "
                     "independent). A model lacking any item x run of the scope is incomplete: null figures, not "
                     "ranked (`coverage` says what it lacks); the ranked models are scored on the same cells. "
                     "Pooled F2 (of mean P and R) is a different, larger number.",
                figure=report.f2_overflag_figure),
        Section("by_category", "Recall by category", scoring.CategoryRecall, report.category_rows,
                note="Pooled: identified gold (required) elements of the category over its gold elements; null "
                     "for an incomplete model."),
        Section("coverage", "Coverage, calls and cost", report.InsufficiencyCoverageRow, report.coverage_rows),
        Section("judge_validation", "Judge validation", report.InsufficiencyJudgeValidationRow,
                report.judge_validation_rows,
                note="The hand-labelled validation set was written by the platform's engineers from the seed's "
                     "rules (not by attorneys); a judge not validated on it, or failing it, is flagged."),
    ),
    checks=(
        MartCheck("responses_complete", "insufficiency_missing", "every cell in scope has a response (names the "
                  "missing ones and their recorded failure)", report.responses_complete),
        MartCheck("judgments_complete", "insufficiency_missing", "every response in scope has a judgment by the "
                  "scope's judge (names the missing ones)", report.judgments_complete),
        MartCheck("comparable_scope", "insufficiency_completeness", "every model in scope is judged on every (item, "
                  "run) cell of the scope (names the incomplete models: null figures, not ranked)",
                  report.comparable_scope),
        MartCheck("judge_validated", "insufficiency_judge_validations", "the scope's judge passes the held-out "
                  "validation set (an unvalidated judge is flagged)", report.judge_validated),
    ),
    commands=lazy("lhl_platform.insufficiency.commands").COMMANDS,
    item_sets=_item_sets,
    compare=(CompareMetric.mean("f2", "f2"), CompareMetric.mean("precision", "precision"),
             CompareMetric.mean("recall", "recall"), CompareMetric.mean("hedge_rate", "hedge"),
             CompareMetric.mean("expl_acc", "expl_acc"), CompareMetric.mean("safety", "safety"),
             CompareMetric.mean("over_flag", "over_flag")),
    units="insufficiency_units",
    cluster="base_id",  # a variant is drawn with its base query
    offline_models=OFFLINE_MODELS,
    scope=SuiteScope(suite=NAME, cells="insufficiency_cells", judged=True, default_judge=CUE_JUDGE,
                     judgments="int_insufficiency_judgments", gold="int_insufficiency_gold_versions"),
    agreement=Agreement(report.measure_agreement, report.agreement_text),
    plan=stages.plan_calls,
    reporting=SectionReporting(verdict=VERDICT_RULE),  # the shared report of its sections; its verdict's rule
    monitor=MONITOR,  # headline figures by audit round: `lhl monitor`, the trend section, no_change_detected
    demo=Demo(models=tuple((ModelSpec(name=m, provider="offline", model_id=m), what) for m, what in (
        (PREMATURE_CLOSURE, "calibration: answers at once under presumed defaults, never flags a gap"),
        (INDISCRIMINATE_HEDGING, "calibration: asks the same eight intake questions whatever the query"),
        (GOLD_READER, "calibration: reads the gold and asks for exactly what is missing (the upper bound)")))),
)
