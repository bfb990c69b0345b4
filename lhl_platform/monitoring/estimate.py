"""A point's estimate, standard error and 95% interval from its sufficient statistics, and the two-sided test of a
round against its baseline: the one place these formulas live (the marts hold counts, the benchmark draws counts).

A mean of unit values in [low, high] gets one pseudo-unit at each end of the range before its variance is taken:
for a rate this is the Agresti-Caffo adjustment (one success and one failure added), so a rate of 0 or 1 on a
few units has a standard error above zero and its interval is never a point. F1 is 2q / (1 + q) with q the share
of matched atoms (a match, an unmatched gold tuple or an unmatched prediction each one atom): its interval maps
q's, its standard error is q's by the delta method. A macro overall figure is the mean of its categories', its
variance the sum of theirs over the count squared (the categories' units are disjoint).

The test of a round against its baseline takes the variance under the null (both sides pooled): the score test
of two rates with Yates' continuity correction, whose tails stay at or under the nominal rate at Holm's small
thresholds where the unpooled test's run at twice it (benchmarks/monitoring.py measures the false alarms).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
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


def _is_rate(metric: MonitorMetric, stats: Stats) -> bool:
    return metric.kind == "f1" or (metric.low, metric.high) == (0.0, 1.0) and stats.s2 == stats.s1


def _null_variance(metric: MonitorMetric, new: Stats, base: Stats) -> tuple[float, float, float] | None:
    """(difference of the two sides' figures, its variance if both came from one population, the continuity
    correction): the variance is the pooled sample's (with the pseudo-units), so a side that happens to be extreme
    does not shrink its own; a rate's counts are whole, so its difference is corrected by half a unit a side
    (Yates), which keeps the test's tails at or under the nominal rate on a few dozen units."""
    if new.n <= 0 or base.n <= 0:
        return None
    pooled = new + base
    if metric.kind == "f1":  # tested on the share of matched atoms, of which F1 is an increasing function
        pooled = Stats(pooled.n, pooled.s1, pooled.s1)
        low, high = 0.0, 1.0
    else:
        low, high = metric.low, metric.high
    n = pooled.n + 2
    mean = (pooled.s1 + low + high) / n
    var = max((pooled.s2 + low * low + high * high) / n - mean * mean, 0.0)
    correction = 0.5 * (1 / new.n + 1 / base.n) if _is_rate(metric, pooled) else 0.0
    return new.s1 / new.n - base.s1 / base.n, var * (1 / new.n + 1 / base.n), correction


def z_score(metric: MonitorMetric, new: Stats | Mapping[str, Stats], base: Stats | Mapping[str, Stats]
            ) -> float | None:
    """The difference over its standard error under the null of no change (independent samples); a macro
    figure's from its categories' (those both sides have). Null where a side has no unit."""
    if isinstance(new, Stats) and isinstance(base, Stats):
        parts = [_null_variance(metric, new, base)]
    elif not isinstance(new, Stats) and not isinstance(base, Stats):
        parts = [_null_variance(metric, new[c], base[c]) for c in new if c in base]
    else:
        return None
    found = [p for p in parts if p is not None]
    if not found:
        return None
    diff = sum(d for d, _, _ in found) / len(found)
    var = sum(v for _, v, _ in found) / len(found) ** 2
    shrunk = math.copysign(max(abs(diff) - sum(c for _, _, c in found) / len(found), 0.0), diff)
    if var == 0:
        return 0.0 if shrunk == 0 else math.copysign(math.inf, diff)
    return shrunk / math.sqrt(var)


def two_sided_p(metric: MonitorMetric, new: Stats | Mapping[str, Stats], base: Stats | Mapping[str, Stats]
                ) -> float | None:
    """The two-sided test of no change: the pooled-variance (score) test of two rates, its analogue for a mean."""
    z = z_score(metric, new, base)
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
