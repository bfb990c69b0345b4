"""A suite's series: one point per (model, round, category, metric) from the suite's monitoring mart, each with its
interval, its n, the round's date, judge and gold version, and whether the round is partial."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from lhl_platform.monitoring.declaration import Monitor, MonitorMetric
from lhl_platform.monitoring.estimate import Estimate, Stats, estimate, macro

# A cell's statistics in one round: pooled counts, or (a macro overall figure) its categories' counts.
CellStats = Stats | Mapping[str, Stats]
CellKey = tuple[str, str | None, str]  # model, category (None: overall), metric


class RoundInfo(BaseModel):
    model: str
    run: int
    at: str | None
    judge: str | None
    gold_version: int | None
    partial: bool


class Point(RoundInfo):
    """One figure of one round. `parts`: the categories an overall macro figure is the mean of."""

    category: str | None
    metric: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    parts: int = 1


@dataclass
class Series:
    """The mart read once: every round's facts and every cell's statistics per round."""

    monitor: Monitor
    rounds: dict[tuple[str, int], RoundInfo]
    cells: dict[CellKey, dict[int, CellStats]]

    def point_estimate(self, metric: MonitorMetric, stats: CellStats) -> Estimate:
        if isinstance(stats, Stats):
            return estimate(metric, stats)
        return macro(metric, [estimate(metric, s) for s in stats.values()])

    def points(self) -> list[Point]:
        out = []
        for (model, category, key), by_run in self.cells.items():
            metric = self.monitor.metric(key)
            for run, stats in by_run.items():
                info = self.rounds[(model, run)]
                e = self.point_estimate(metric, stats)
                out.append(Point(**info.model_dump(), category=category, metric=key, value=e.value, ci_low=e.low,
                                 ci_high=e.high, n=e.n, parts=e.parts))
        order = {m.key: i for i, m in enumerate(self.monitor.metrics)}
        return sorted(out, key=lambda p: (order[p.metric], p.category is not None, p.category or "", p.model, p.run))


def _at(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat(timespec="seconds") if isinstance(value, datetime) else str(value)


def series_from_rows(monitor: Monitor, rows: Iterable[Mapping[str, Any]], *, models: Sequence[str] | None = None,
                     metrics: Sequence[str] | None = None) -> Series:
    """The series of the mart's rows (optionally some models and metrics); a macro suite's overall cells made from
    its categories'."""
    wanted = set(metrics) if metrics else {m.key for m in monitor.metrics}
    rounds: dict[tuple[str, int], RoundInfo] = {}
    cells: dict[CellKey, dict[int, CellStats]] = {}
    overall: dict[CellKey, dict[int, dict[str, Stats]]] = {}
    for row in rows:
        model, run, metric = str(row["model"]), int(row["run"]), str(row["metric"])
        if (models and model not in models) or metric not in wanted:
            continue
        rounds.setdefault((model, run), RoundInfo(
            model=model, run=run, at=_at(row["at"]), judge=row["judge"],
            gold_version=None if row["gold_version"] is None else int(row["gold_version"]),
            partial=bool(row["partial"])))
        stats = Stats(int(row["n"] or 0), float(row["s1"] or 0.0), float(row["s2"] or 0.0))
        category = row["category"]
        cells.setdefault((model, category, metric), {})[run] = stats
        if monitor.overall == "macro" and category is not None:
            overall.setdefault((model, None, metric), {}).setdefault(run, {})[str(category)] = stats
    for key, by_run in overall.items():
        cells[key] = dict(by_run)
    return Series(monitor, rounds, cells)
