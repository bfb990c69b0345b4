"""Change detection across audit rounds (docs/method.md, section 12).

Rounds are taken in order. In each round every (model, category, metric) cell the round has is tested against
the same cell's baseline: the cell's last `window` complete rounds since its last detected change, pooled. The
test is the two-sided pooled-variance (score) test of the difference (`estimate.two_sided_p`); a side with fewer
than `min_units`
units is never tested. All the round's p-values, across models, categories and metrics, are adjusted together
(Holm), and a cell changed where its adjusted p-value is at most `alpha`: a round in which nothing changed raises
any alert with probability at most `alpha`. A detected change restarts the cell's baseline at that round, so
the new level becomes the normal one and is not reported again. A partial round (calls or rows missing) is
drawn but neither tested nor used as a baseline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel

from lhl_platform.monitoring.declaration import ALPHA, MIN_UNITS, WINDOW
from lhl_platform.monitoring.estimate import Estimate, Stats, holm, two_sided_p, z_score
from lhl_platform.monitoring.series import CellKey, CellStats, Series

Untested = Literal["", "first round", "partial round", "few units", "no figure"]


class Comparison(BaseModel):
    """One cell of one round against its baseline; `changed` only where tested and significant after Holm."""

    model: str
    category: str | None
    metric: str
    run: int
    baseline_runs: list[int]
    from_value: float | None
    from_low: float | None
    from_high: float | None
    from_n: int
    to_value: float | None
    to_low: float | None
    to_high: float | None
    to_n: int
    p: float | None
    p_adjusted: float | None
    changed: bool
    started: int | None  # the round the change is estimated to have begun (a changed cell)
    untested: Untested = ""


class Settings(BaseModel):
    window: int = WINDOW
    alpha: float = ALPHA
    min_units: int = MIN_UNITS


def _pool(parts: Sequence[CellStats]) -> CellStats:
    first = parts[0]
    if isinstance(first, Stats):
        total = Stats(0, 0.0, 0.0)
        for part in parts:
            assert isinstance(part, Stats)
            total = total + part
        return total
    pooled: dict[str, Stats] = {}
    for part in parts:
        assert not isinstance(part, Stats)
        for category, stats in part.items():
            pooled[category] = pooled.get(category, Stats(0, 0.0, 0.0)) + stats
    return pooled


def _common(a: CellStats, b: CellStats) -> tuple[CellStats, CellStats]:
    """A macro figure compared on the categories both sides have units in (like with like)."""
    if isinstance(a, Stats) or isinstance(b, Stats):
        return a, b
    shared = [c for c in a if a[c].n > 0 and c in b and b[c].n > 0]
    return {c: a[c] for c in shared}, {c: b[c] for c in shared}


def _started(series: Series, key: CellKey, runs: Sequence[int]) -> int:
    """The single change point of the runs (baseline runs then the new round) that best splits them: the later
    side starting at the returned round. The newest round when only one baseline round precedes it."""
    metric = series.monitor.metric(key[2])
    history = series.cells[key]
    best, best_z = runs[-1], -1.0
    for i in range(1, len(runs)):
        before, after = _common(_pool([history[r] for r in runs[:i]]), _pool([history[r] for r in runs[i:]]))
        found = z_score(metric, after, before)
        z = 0.0 if found is None else abs(found)
        if z > best_z:
            best, best_z = runs[i], z
    return best


def _row(key: CellKey, run: int, base_runs: list[int], base: Estimate, new: Estimate, p: float | None,
         untested: Untested) -> Comparison:
    return Comparison(model=key[0], category=key[1], metric=key[2], run=run, baseline_runs=base_runs,
                      from_value=base.value, from_low=base.low, from_high=base.high, from_n=base.n,
                      to_value=new.value, to_low=new.low, to_high=new.high, to_n=new.n, p=p, p_adjusted=None,
                      changed=False, started=None, untested=untested)


def detect(series: Series, settings: Settings | None = None) -> list[Comparison]:
    """Every cell of every round compared with its baseline, in round order."""
    s = settings or Settings()
    baseline: dict[CellKey, list[int]] = {}
    out: list[Comparison] = []
    for run in sorted({r for _, r in series.rounds}):
        tested: list[Comparison] = []
        present = [key for key, history in series.cells.items() if run in history]
        for key in present:
            if series.rounds[(key[0], run)].partial:
                out.append(_row(key, run, [], Estimate(None, None, None, None, 0),
                                series.point_estimate(series.monitor.metric(key[2]), series.cells[key][run]), None,
                                "partial round"))
                continue
            metric = series.monitor.metric(key[2])
            base_runs = baseline.get(key, [])[-s.window:]
            if not base_runs:
                out.append(_row(key, run, [], Estimate(None, None, None, None, 0),
                                series.point_estimate(metric, series.cells[key][run]), None, "first round"))
                continue
            history = series.cells[key]
            base_stats, new_stats = _common(_pool([history[r] for r in base_runs]), history[run])
            base, new = series.point_estimate(metric, base_stats), series.point_estimate(metric, new_stats)
            if base.value is None or new.value is None:
                out.append(_row(key, run, base_runs, base, new, None, "no figure"))
            elif min(base.n, new.n) < s.min_units:
                out.append(_row(key, run, base_runs, base, new, None, "few units"))
            else:
                tested.append(_row(key, run, base_runs, base, new, two_sided_p(metric, new_stats, base_stats), ""))
        for row, adjusted in zip(tested, holm([r.p or 0.0 for r in tested]), strict=True):
            row.p_adjusted = adjusted
            row.changed = adjusted <= s.alpha
            if row.changed:
                row.started = _started(series, (row.model, row.category, row.metric), [*row.baseline_runs, run])
        out.extend(tested)
        changed = {(r.model, r.category, r.metric) for r in tested if r.changed}
        for key in present:
            if series.rounds[(key[0], run)].partial:
                continue
            baseline[key] = [run] if key in changed else [*baseline.get(key, []), run]
    return out


def changes(comparisons: Sequence[Comparison]) -> list[Comparison]:
    return [c for c in comparisons if c.changed]


def by_round(comparisons: Sequence[Comparison]) -> Mapping[int, list[Comparison]]:
    rounds: dict[int, list[Comparison]] = {}
    for c in comparisons:
        if c.changed:
            rounds.setdefault(c.run, []).append(c)
    return rounds
