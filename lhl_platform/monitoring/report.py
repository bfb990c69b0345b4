"""A suite's monitoring report, read once from its mart: the series, every round's comparisons, the changes, and
the alert each round with a change raises."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from lhl_platform.monitoring.declaration import Monitor
from lhl_platform.monitoring.detect import Comparison, Settings, by_round, detect
from lhl_platform.monitoring.series import Point, series_from_rows
from lhl_platform.quality.checks import CheckOutcome

if TYPE_CHECKING:
    import duckdb

CHECK = "no_change_detected"


class RoundAlert(BaseModel):
    """What one round's changes tell whoever is alerted: one line each, and where to look."""

    suite: str
    run: int
    changes: list[Comparison]
    summary: str
    report: str


class MonitorReport(BaseModel):
    suite: str
    title: str
    settings: Settings
    metrics: list[str]
    rounds: list[int]
    models: list[str]
    points: list[Point]
    comparisons: list[Comparison]
    alerts: list[RoundAlert]

    @property
    def changes(self) -> list[Comparison]:
        return [c for c in self.comparisons if c.changed]


def _num(value: float | None, signed: bool) -> str:
    return "-" if value is None else (f"{value:+.3f}" if signed else f"{value:.3f}")


def change_line(monitor: Monitor, c: Comparison) -> str:
    """`model: Recall in Undefined capitalised terms 0.812 [0.780, 0.841] (n 1041, runs 1-4) -> 0.402 [...] (n
    1041) in round 5, since round 5, adjusted p 0.0001`."""
    metric = monitor.metric(c.metric)
    s = metric.signed
    first, last = c.baseline_runs[0], c.baseline_runs[-1]
    base = f"runs {first}-{last}" if len(c.baseline_runs) > 1 else f"run {first}"
    return (f"{c.model}: {metric.label} ({monitor.category_label(c.category)}) {_num(c.from_value, s)} "
            f"[{_num(c.from_low, s)}, {_num(c.from_high, s)}] (n {c.from_n}, {base}) -> {_num(c.to_value, s)} "
            f"[{_num(c.to_low, s)}, {_num(c.to_high, s)}] (n {c.to_n}) in round {c.run}, since round {c.started}, "
            f"adjusted p {c.p_adjusted:.2g}")


def report_command(suite: str) -> str:
    return f"lhl monitor --suite {suite} --format html --out monitor-{suite}.html"


def round_alerts(suite: str, monitor: Monitor, comparisons: Sequence[Comparison]) -> list[RoundAlert]:
    out = []
    for run, found in sorted(by_round(comparisons).items()):
        lines = [change_line(monitor, c) for c in found]
        out.append(RoundAlert(suite=suite, run=run, changes=found, report=report_command(suite),
                              summary=f"{suite} round {run}: {len(found)} change(s): " + "; ".join(lines)))
    return out


def read_rows(con: duckdb.DuckDBPyConnection, monitor: Monitor) -> list[dict[str, object]]:
    cursor = con.execute(f"select * from {monitor.mart}")
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def monitor_report(con: duckdb.DuckDBPyConnection, suite: str, title: str, monitor: Monitor, *,
                   models: Sequence[str] | None = None, metrics: Sequence[str] | None = None,
                   settings: Settings | None = None) -> MonitorReport:
    """The suite's series in the connection's scope. Detection always runs on every metric of the models asked
    (the round's family of tests is the same whichever metric is shown); `metrics` narrows what is shown."""
    for key in metrics or ():
        monitor.metric(key)  # an unknown metric: a LookupError naming the known ones
    chosen = settings or Settings()
    series = series_from_rows(monitor, read_rows(con, monitor), models=models)
    comparisons = detect(series, chosen)
    shown = set(metrics) if metrics else {m.key for m in monitor.metrics}
    points = [p for p in series.points() if p.metric in shown]
    return MonitorReport(
        suite=suite, title=title, settings=chosen, metrics=[m.key for m in monitor.metrics if m.key in shown],
        rounds=sorted({r for _, r in series.rounds}), models=sorted({m for m, _ in series.rounds}), points=points,
        comparisons=[c for c in comparisons if c.metric in shown],
        alerts=round_alerts(suite, monitor, comparisons))


def newest_round_outcome(report: MonitorReport, monitor: Monitor) -> CheckOutcome:
    """The check on the newest round: fails, naming every change, where it detected one (the alert of that round)."""
    s = report.settings
    description = (f"no headline figure of the newest audit round differs from the model's last {s.window} rounds "
                   f"(two-sided tests, Holm-adjusted across the round's tests, family-wise alpha {s.alpha:g}, at "
                   f"least {s.min_units} units a side)")
    if not report.rounds:
        return CheckOutcome(name=CHECK, passed=True, description=description, summary="no audit round in scope",
                            metadata={"rounds": 0})
    newest = report.rounds[-1]
    tested = [c for c in report.comparisons if c.run == newest and c.p is not None]
    alert = next((a for a in report.alerts if a.run == newest), None)
    # An overall figure the round has no value for (a judge that labelled none of its TPs, say): named, never
    # compared as 0.
    blank: dict[str, list[str]] = {}
    for c in report.comparisons:
        if c.run == newest and c.category is None and c.untested == "no figure":
            blank.setdefault(c.model, []).append(monitor.metric(c.metric).label)
    note = ("; not compared, no figure in scope: " + "; ".join(f"{m} run {newest} ({', '.join(labels)})"
                                                              for m, labels in sorted(blank.items()))
            if blank else "")
    metadata: dict[str, int | float | str | bool] = {
        "suite": report.suite, "round": newest, "tested": len(tested), "alpha": report.settings.alpha,
        "window": report.settings.window, "changes": 0 if alert is None else len(alert.changes),
        "not_compared": "; ".join(f"{m} run {newest}" for m in sorted(blank)), "report": report_command(report.suite)}
    if alert is None:
        summary = (f"no change in round {newest} ({len(tested)} tests)" if tested else
                   f"round {newest}: nothing to test yet (no earlier complete round with {report.settings.min_units} "
                   "units or more)")
        return CheckOutcome(name=CHECK, passed=True, description=description, summary=summary + note,
                            metadata=metadata)
    return CheckOutcome(name=CHECK, passed=False, description=description, summary=alert.summary + note,
                        metadata=metadata)
