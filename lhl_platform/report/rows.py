"""The report's row types: one per section, typed at the boundary where SQL rows become Python."""

from __future__ import annotations

from pydantic import BaseModel

from lhl_platform.warehouse.scope import Scope

METRIC_COLUMNS = ("runs", "n", "tp", "fp", "fn", "tn", "supported", "contradicted", "n_missing_condition",
                  "n_extra_condition", "far", "frr", "acc", "hal_tp", "hal_gen", "jeq", "rdi")


class MetricRow(BaseModel):
    model: str
    runs: int
    n: int
    tp: int
    fp: int
    fn: int
    tn: int
    supported: int
    contradicted: int
    n_missing_condition: int
    n_extra_condition: int
    far: float | None
    frr: float | None
    acc: float | None
    hal_tp: float | None
    hal_gen: float | None
    jeq: float | None
    rdi: float | None
    rdi_ci_low: float | None = None
    rdi_ci_high: float | None = None
    missing_rows: int


class LeaderboardRow(MetricRow):
    contracts: int
    coverage_differs: bool


class RunRow(MetricRow):
    run: int


class CategoryRow(MetricRow):
    category: str


class GapRow(BaseModel):
    model: str
    gap: float | None
    max_category: str | None
    min_category: str | None


class CompositeRow(BaseModel):
    scheme: str
    model: str
    score: float | None
    rank: int | None


class UsageRow(BaseModel):
    model: str
    run: int
    extraction_calls: int
    judge_calls: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    extraction_cost_usd: float | None
    judge_cost_usd: float | None
    cost_usd: float | None


class ClauseRow(MetricRow):
    category: str
    clause_type: str


class RdiRow(BaseModel):
    model: str
    category: str | None
    contradicted: int
    n_missing_condition: int
    n_extra_condition: int
    n_scope: int
    p_missing: float | None
    p_extra: float | None
    p_scope: float | None
    rdi: float | None
    rdi_ci_low: float | None = None
    rdi_ci_high: float | None = None


class RunSummaryRow(BaseModel):
    model: str
    runs: int
    far_mean: float | None
    far_sd: float | None
    frr_mean: float | None
    frr_sd: float | None
    acc_mean: float | None
    acc_sd: float | None
    hal_tp_mean: float | None
    hal_tp_sd: float | None
    hal_gen_mean: float | None
    hal_gen_sd: float | None
    jeq_mean: float | None
    jeq_sd: float | None
    rdi_mean: float | None
    rdi_sd: float | None


class DebateEffectRow(BaseModel):
    """Base versus debate on the same instances, per (backbone, run, subset, configuration kind)."""

    backbone: str
    run: int
    subset: str | None
    config: str
    decisions: int
    fp_base: int
    fp_debate: int
    contradicted_base: int
    contradicted_debate: int
    far_base: float | None
    far_debate: float | None
    hal_gen_base: float | None
    hal_gen_debate: float | None
    rdi_base: float | None
    rdi_debate: float | None
    mean_rounds: float | None
    share_round1: float | None
    consensus_rate: float | None
    flip_rate: float | None
    calls_per_decision: float | None
    tokens_per_decision: float | None


class DebateCategoryRow(BaseModel):
    """The debate's effect in one category (debate minus base on the same instances)."""

    backbone: str
    run: int
    subset: str | None
    config: str
    category: str
    delta_far: float | None
    delta_hal_gen: float | None
    rdi_shift: float | None
    flip_rate: float | None


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
