"""What a suite gets from declaring a monitor (`Suite.monitor`): its monitoring report read in any scope, the check
on its mart (the alert of a round with a change), the trend section of its report and the headline figures its
mart's materializations carry. `mart_checks` and `report_sections` are a suite's checks and sections with these
added: what every report, the Dagster definitions and the audit's alert echo read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from lhl_platform.monitoring.declaration import Monitor
from lhl_platform.monitoring.detect import Settings
from lhl_platform.monitoring.report import CHECK, MonitorReport, monitor_report, newest_round_outcome

if TYPE_CHECKING:
    import duckdb

    from lhl_platform.home import Home
    from lhl_platform.quality.checks import CheckOutcome
    from lhl_platform.suites.contract import MartCheck, Section, Suite
    from lhl_platform.warehouse.scope import ScopeRequest


def suite_monitor_report(con: duckdb.DuckDBPyConnection, suite: Suite, *, models: Sequence[str] | None = None,
                         metrics: Sequence[str] | None = None, settings: Settings | None = None) -> MonitorReport:
    assert suite.monitor is not None, f"suite {suite.name} declares no monitor"
    return monitor_report(con, suite.name, suite.title, suite.monitor, models=models, metrics=metrics,
                          settings=settings)


def read_monitor_report(home: Home, suite: Suite, request: ScopeRequest | None = None, **kwargs: object
                        ) -> MonitorReport:
    from lhl_platform.warehouse.build import read_warehouse
    from lhl_platform.warehouse.scope import ScopeRequest

    with read_warehouse(home, request or ScopeRequest(suite=suite.name)) as con:
        return suite_monitor_report(con, suite, **kwargs)  # type: ignore[arg-type]


def changes_check(suite: Suite) -> MartCheck:
    from lhl_platform.suites.contract import MartCheck

    monitor = suite.monitor
    assert monitor is not None

    def check(con: duckdb.DuckDBPyConnection) -> CheckOutcome:
        return newest_round_outcome(suite_monitor_report(con, suite), monitor)

    return MartCheck(CHECK, monitor.mart, "no headline figure of the newest audit round changed against the model's "
                     "recent rounds (Holm-controlled across the round's tests)", check)


class TrendRow(BaseModel):
    """A report's trend section: a model's overall figure in one round, and whether it changed there."""

    model: str
    run: int
    at: str | None
    metric: str
    value: float | None
    value_ci_low: float | None
    value_ci_high: float | None
    n: int
    partial: bool
    changed: bool
    p_adjusted: float | None


def _minute(at: str | None) -> str | None:
    """A round's date to the minute (UTC), as a reader reads it."""
    return None if at is None else at[:16].replace("T", " ")


def trend_rows(report: MonitorReport) -> list[TrendRow]:
    tested = {(c.model, c.metric, c.run): c for c in report.comparisons if c.category is None and c.p is not None}
    out = []
    for p in report.points:
        if p.category is not None:
            continue
        c = tested.get((p.model, p.metric, p.run))
        out.append(TrendRow(model=p.model, run=p.run, at=_minute(p.at), metric=p.metric, value=p.value,
                            value_ci_low=p.ci_low, value_ci_high=p.ci_high, n=p.n, partial=p.partial,
                            changed=bool(c and c.changed),
                            p_adjusted=None if c is None else c.p_adjusted))
    return out


def trend_svg_of(rows: Sequence[BaseModel], monitor: Monitor, title: str) -> str:
    """The trend figure of a report's trend rows: one panel per metric, one line per model."""
    from lhl_platform.monitoring.series import Point
    from lhl_platform.report.trend import trend_svg

    trend = [r for r in rows if isinstance(r, TrendRow)]
    points = [Point(model=r.model, run=r.run, at=r.at, judge=None, gold_version=None, partial=r.partial,
                    category=None, metric=r.metric, value=r.value, ci_low=r.value_ci_low, ci_high=r.value_ci_high,
                    n=r.n)
              for r in trend]
    changed = {(r.model, r.metric, r.run) for r in trend if r.changed}
    return trend_svg(monitor, points, changed, title=f"{title}: overall figures by audit round")


def trend_figure(suite: Suite) -> Callable[[Sequence[BaseModel]], str]:
    monitor = suite.monitor
    assert monitor is not None
    return lambda rows: trend_svg_of(rows, monitor, suite.title)


def trend_html(rows: Sequence[TrendRow], monitor: Monitor, title: str) -> str:
    """The trend section of a report with its own renderer (the clause suite's)."""
    from lhl_platform.report.html import Cell, figure_html, note_html, section_html, table

    if not rows:
        return section_html("trend", "Trend over audit rounds", "<p>No audit round in scope.</p>")
    def text(metric: str, value: float | None) -> str:
        return "-" if value is None else (f"{value:+.3f}" if monitor.metric(metric).signed else f"{value:.1%}")

    shown = [({"model": r.model, "metric": r.metric},
              [Cell(r.model), Cell(monitor.metric(r.metric).label), Cell(str(r.run)),
               Cell(text(r.metric, r.value), r.value, r.metric),
               Cell("-" if r.value_ci_low is None or r.value_ci_high is None
                    else f"[{text(r.metric, r.value_ci_low)}, {text(r.metric, r.value_ci_high)}]"),
               Cell(str(r.n)), Cell("partial" if r.partial else ""), Cell("CHANGED" if r.changed else "")])
             for r in rows if r.changed]
    parts = [figure_html(trend_svg_of(rows, monitor, title), "Overall figures by audit round, 95% intervals shaded",
                         "trend"), note_html(TREND_NOTE)]
    parts.append(table("trend_changes", ["model", "metric", "round", "value", "95% interval", "n", "", ""], shown)
                 if shown else "<p>No change of an overall figure detected.</p>")
    return section_html("trend", "Trend over audit rounds", *parts)


TREND_NOTE = ("One point per model and audit round (run), the overall figure with its 95% interval; a change is "
              "a round that differs from the model's recent rounds after the round's tests are Holm-adjusted "
              "(docs/method.md, section 12). `lhl monitor` lists every category and every change.")


def trend_section(suite: Suite) -> Section:
    """The trend section a suite with a monitor adds to its report (`report_sections`)."""
    from lhl_platform.suites.contract import Section

    def rows(con: duckdb.DuckDBPyConnection) -> list[TrendRow]:
        return trend_rows(suite_monitor_report(con, suite))

    return Section("trend", "Trend over audit rounds", TrendRow, rows, note=TREND_NOTE, figure=trend_figure(suite))


def headline_figures(report: MonitorReport) -> dict[str, float]:
    """Each model's newest round's overall figures, keyed `metric · model` (numeric materialization metadata: the
    Dagster UI plots each key over the materializations, so a model's history shows where its mart is)."""
    newest: dict[tuple[str, str], tuple[int, float]] = {}
    for p in report.points:
        if p.category is None and p.value is not None and not p.partial:
            key = (p.metric, p.model)
            if key not in newest or p.run > newest[key][0]:
                newest[key] = (p.run, p.value)
    return {f"{metric} · {model}": value for (metric, model), (_, value) in sorted(newest.items())}


def mart_checks(suite: Suite) -> tuple[MartCheck, ...]:
    """The suite's checks on its marts, with the monitoring check where it declares a monitor."""
    return suite.checks if suite.monitor is None else (*suite.checks, changes_check(suite))


def report_sections(suite: Suite) -> tuple[Section, ...]:
    """The suite's report sections, with the trend section after them where it declares a monitor."""
    if suite.monitor is None or not suite.sections:
        return suite.sections
    return (*suite.sections, trend_section(suite))
