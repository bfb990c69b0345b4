"""A point's estimate, standard error and 95% interval from its sufficient statistics, and the two-sided test of a
round against its baseline: the one place these formulas live (the marts hold counts, the benchmark draws counts).

A mean of unit values in [low, high] gets one pseudo-unit at each end of the range before its variance is taken:
for a rate this is the Agresti-Caffo adjustment (one success and one failure added), so a rate of 0 or 1 on a
few units has a standard error above zero and its interval is never a point. F1 is 2q / (1 + q) with q the share
of matched atoms (a match, an unmatched gold tuple or an unmatched prediction each one atom): its interval maps
q's, its standard error is q's by the delta method. A macro overall figure is the mean of its categories', its
variance the sum of theirs over the count squared (the categories' units are disjoint).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from lhl_platform.monitoring.declaration import MonitorMetric

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Stats:
    """Units, the sum of their values, the sum of their squares (an F1 cell: atoms, matches, matches)."""

    n: int
    s1: float
    s2: float

    def __add__(self, other: Stats) -> Stats:
        return Stats(self.n + other.n, self.s1 + other.s1, self.s2 + other.s2)


@dataclass(frozen=True)
class Estimate:
    value: float | None
    se: float | None
    low: float | None
    high: float | None
    n: int
    parts: int = 1  # the categories a macro figure is the mean of


NONE = Estimate(None, None, None, None, 0, 0)


def _adjusted_se(stats: Stats, low: float, high: float) -> float:
    n = stats.n + 2
    mean = (stats.s1 + low + high) / n
    var = max((stats.s2 + low * low + high * high) / n - mean * mean, 0.0)
    return math.sqrt(var / n)


def _clip(x: float, metric: MonitorMetric) -> float:
    return min(max(x, metric.low), metric.high)


def estimate(metric: MonitorMetric, stats: Stats) -> Estimate:
    """The point of one cell: null (never 0) without a unit."""
    if stats.n <= 0:
        return Estimate(None, None, None, None, 0)
    if metric.kind == "f1":
        q = stats.s1 / stats.n
        se_q = _adjusted_se(Stats(stats.n, stats.s1, stats.s1), 0.0, 1.0)

        def f1(x: float) -> float:
            return 2 * x / (1 + x)

        return Estimate(f1(q), 2 / (1 + q) ** 2 * se_q, f1(max(q - Z95 * se_q, 0.0)), f1(min(q + Z95 * se_q, 1.0)),
                        stats.n)
    value = stats.s1 / stats.n
    se = _adjusted_se(stats, metric.low, metric.high)
    return Estimate(value, se, _clip(value - Z95 * se, metric), _clip(value + Z95 * se, metric), stats.n)


def macro(metric: MonitorMetric, parts: Sequence[Estimate]) -> Estimate:
    """The unweighted mean of the categories that have a figure; null when none has."""
    found = [p for p in parts if p.value is not None and p.se is not None]
    if not found:
        return NONE
    value = sum(p.value for p in found if p.value is not None) / len(found)
    se = math.sqrt(sum((p.se or 0.0) ** 2 for p in found)) / len(found)
    return Estimate(value, se, _clip(value - Z95 * se, metric), _clip(value + Z95 * se, metric),
                    sum(p.n for p in found), len(found))


def z_score(new: Estimate, base: Estimate) -> float | None:
    """The difference over its standard error (independent samples): null where either side has no figure."""
    if new.value is None or base.value is None or new.se is None or base.se is None:
        return None
    spread = math.sqrt(new.se ** 2 + base.se ** 2)
    if spread == 0:
        return 0.0 if new.value == base.value else math.copysign(math.inf, new.value - base.value)
    return (new.value - base.value) / spread


def two_sided_p(new: Estimate, base: Estimate) -> float | None:
    """The two-sided normal test of new against base."""
    z = z_score(new, base)
    return None if z is None else math.erfc(abs(z) / math.sqrt(2))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (the family-wise error rate held under any dependence between tests)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    m = len(p_values)
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
