"""The report's row types: one per section, typed at the boundary where SQL rows become Python."""

from __future__ import annotations

from pydantic import BaseModel

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
    rdi_ci_low: float | None
    rdi_ci_high: float | None
    missing_rows: int


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


class Report(BaseModel):
    leaderboard: list[MetricRow]
    per_run: list[RunRow]
    typed_profiles: list[CategoryRow]
    gaps: list[GapRow]
    composite: list[CompositeRow]
    usage: list[UsageRow]
