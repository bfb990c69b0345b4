"""What a suite monitors: its headline metrics, the mart holding their per-round statistics, how its overall figure
is formed, and the detection settings every suite shares unless it says otherwise."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["mean", "f1"]
Better = Literal["higher", "lower", "none"]

# The detection defaults (docs/method.md, section 12).
WINDOW = 4  # earlier rounds a new round is tested against: recent enough that a real change becomes the new normal
ALPHA = 0.01  # the family-wise error rate per round: the chance that a round with no change raises any alert
MIN_UNITS = 20  # fewer units on either side and nothing is called


@dataclass(frozen=True)
class MonitorMetric:
    """A headline metric as a mean of unit values in [low, high] (a rate: each unit 0 or 1; RDI: -1, 0 or +1; a
    per-item score), or the F1 of matched atoms (`kind` f1). `better`: which direction is an improvement."""

    key: str
    label: str
    better: Better = "higher"
    low: float = 0.0
    high: float = 1.0
    kind: Kind = "mean"
    signed: bool = False  # printed with a sign (RDI)


@dataclass(frozen=True)
class Monitor:
    """A suite's monitoring. `mart`: one row per (model, run, category, metric) with `n`, `s1`, `s2` (units, sum of
    unit values, sum of their squares; an F1 row: atoms and matches), the round's `at`, `judge`, `gold_version` and
    `partial`; category null for the overall figure unless `overall` is `macro`, where the overall figure is the
    unweighted mean of the categories that have one, computed here. `unit`: what a unit is, for the reader."""

    mart: str
    metrics: tuple[MonitorMetric, ...]
    headline: str = ""  # the mart whose Dagster materializations carry the newest round's figures as numbers
    overall: Literal["pooled", "macro"] = "pooled"
    unit: str = "units"
    category_labels: tuple[tuple[str, str], ...] = ()

    def metric(self, key: str) -> MonitorMetric:
        for metric in self.metrics:
            if metric.key == key:
                return metric
        raise LookupError(f"unknown metric {key!r}; known: {', '.join(m.key for m in self.metrics)}")

    def category_label(self, category: str | None) -> str:
        if category is None:
            return "overall"
        return dict(self.category_labels).get(category, category.replace("_", " "))
