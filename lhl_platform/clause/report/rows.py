"""The clause report: one section per mart, each row typed by the mart's row class (`marts.py`)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from lhl_platform.clause.report.marts import (
    CategoryRow,
    ClauseRow,
    CompositeRow,
    DebateCategoryRow,
    DebateEffectRow,
    GapRow,
    JudgeHeldOutFamilyRow,
    JudgeValidationRow,
    LeaderboardRow,
    MetricRow,
    RdiRow,
    RunRow,
    RunSummaryRow,
    ScopeCoverageRow,
    UsageRow,
)
from lhl_platform.clause.report.stats import Provenance, Statistics
from lhl_platform.report.cost import CostSection
from lhl_platform.report.monitor import TrendRow
from lhl_platform.report.system_nature import SystemNature
from lhl_platform.warehouse.scope import Scope

METRIC_COLUMNS = ("runs", "n", "tp", "fp", "fn", "tn", "supported", "contradicted", "n_missing_condition",
                  "n_extra_condition", "far", "frr", "acc", "hal_tp", "hal_gen", "jeq", "rdi")


class Report(BaseModel):
    scope: Scope
    leaderboard: list[LeaderboardRow]
    per_run: list[RunRow]
    typed_profiles: list[CategoryRow]
    gaps: list[GapRow]
    composite: list[CompositeRow]
    usage: list[UsageRow]
    rdi: list[RdiRow]
    run_summary: list[RunSummaryRow]
    clause_profiles: list[ClauseRow]
    debate_effects: list[DebateEffectRow] = []
    debate_by_category: list[DebateCategoryRow] = []
    judge_validation: list[JudgeValidationRow] = []  # the scope's judge's validation (held-out gate), when any
    provenance: Provenance | None = None
    statistics: Statistics | None = None
    # What each system covers of the scope (`scope_coverage`), the one statement the header, the leaderboard, the
    # checks, the HTML and `lhl publish` read. Last, so the sections before it keep their place in the JSON.
    coverage: list[ScopeCoverageRow] = []
    # Cost per model, stage, correct answer, batch savings and monitored runs (`cost.py`); after coverage, so the
    # sections before it keep their place in the JSON.
    cost: CostSection | None = None
    # The scope's judge family by family on every held-out set (`judge_heldout_families`): the evidence its
    # `judge_validation` row's `passed` rests on. After cost, so the sections before it keep their place.
    judge_heldout: list[JudgeHeldOutFamilyRow] = []
    # Each model's overall headline figures round by round, with the changes detected (`lhl_platform.monitoring`).
    # After the held-out evidence, so the sections before it keep their place.
    trend: list[TrendRow] = []
    # What each system is (`report/system_nature.py`), named beside it wherever it is read. After the trend.
    systems: list[SystemNature] = []
    # The composite scheme the verdict ranks by (`lhl report --scheme`); not a section: the verdict names it.
    verdict_scheme: str = Field(default="equal", exclude=True)


__all__ = ["METRIC_COLUMNS", "CategoryRow", "ClauseRow", "CompositeRow", "DebateCategoryRow", "DebateEffectRow",
           "GapRow", "JudgeHeldOutFamilyRow", "JudgeValidationRow", "LeaderboardRow", "MetricRow", "Provenance",
           "RdiRow", "Report", "RunRow", "RunSummaryRow", "ScopeCoverageRow", "Statistics", "UsageRow"]
