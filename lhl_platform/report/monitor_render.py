"""`lhl monitor` output in every format: the series as a grid (one row per model and category, one column per round)
and the changes; JSON with every point and comparison; CSV of the points; a self-contained trend page."""

from __future__ import annotations

import csv
import io
from html import escape

from lhl_platform.monitoring.declaration import Monitor
from lhl_platform.monitoring.report import MonitorReport, change_line
from lhl_platform.monitoring.series import Point
from lhl_platform.report.trend import trend_svg

FORMATS = ("table", "json", "csv", "md", "html")


def _cell(p: Point | None, signed: bool) -> str:
    if p is None:
        return ""
    if p.value is None:
        return "-"
    text = f"{p.value:+.3f}" if signed else f"{p.value:.3f}"
    return text + ("*" if p.partial else "")


def _method(report: MonitorReport) -> str:
    s = report.settings
    return (f"Each round against the model's last {s.window} complete rounds since its last change, two-sided tests "
            f"Holm-adjusted across all of the round's tests (family-wise alpha {s.alpha:g}: a round without change "
            f"alerts with probability at most {s.alpha:g}); a side with fewer than {s.min_units} units is not tested.")


def render_text(report: MonitorReport, monitor: Monitor, markdown: bool) -> str:
    from lhl_platform.report.layout import text_table

    out = [f"{'# ' if markdown else ''}Monitoring: {report.title}", "",
           f"{len(report.rounds)} round(s) of {len(report.models)} model(s). {_method(report)} "
           f"* marks a partial round (calls or rows missing: drawn, never tested).", ""]
    by_key = {(p.metric, p.category, p.model, p.run): p for p in report.points}
    for key in report.metrics:
        metric = monitor.metric(key)
        mine = [p for p in report.points if p.metric == key]
        categories = list(dict.fromkeys(p.category for p in mine))
        rows = [[p_model, monitor.category_label(category)]
                + [_cell(by_key.get((key, category, p_model, run)), metric.signed) for run in report.rounds]
                for category in categories for p_model in report.models
                if any((key, category, p_model, run) in by_key for run in report.rounds)]
        out += [f"{'## ' if markdown else ''}{metric.label}", "",
                text_table(["model", "category", *(f"round {r}" for r in report.rounds)], rows, markdown), ""]
    changes = report.changes
    out.append(f"{'## ' if markdown else ''}Changes detected ({len(changes)})")
    out.append("")
    out += [("- " if markdown else "  ") + change_line(monitor, c) for c in changes] or ["none"]
    return "\n".join(out).rstrip() + "\n"


def render_csv(report: MonitorReport) -> str:
    buffer = io.StringIO()
    fields = list(Point.model_fields)
    writer = csv.DictWriter(buffer, fieldnames=["suite", *fields], lineterminator="\n")
    writer.writeheader()
    for p in report.points:
        writer.writerow({"suite": report.suite, **{k: ("" if v is None else v) for k, v in p.model_dump().items()}})
    return buffer.getvalue()


def render_json(report: MonitorReport) -> str:
    body = report.model_dump(mode="json")
    body["changes"] = [c.model_dump(mode="json") for c in report.changes]
    import json

    return json.dumps(body, indent=2) + "\n"


def trend_section_html(report: MonitorReport, monitor: Monitor, labels: dict[str, str] | None = None) -> str:
    """The trend section every suite's HTML report carries (and the standalone page's body)."""
    from lhl_platform.report.html import Cell, figure_html, section_html, table

    parts = [f'<div class="note">{escape(_method(report))} A hollow dot is a partial round; a ringed dot a detected '
             "change of the overall figure (changes of a category are listed below).</div>"]
    if report.points:
        changed = {(c.model, c.metric, c.run) for c in report.changes if c.category is None}
        svg = trend_svg(monitor, report.points, changed, title=f"{report.title}: overall figures by round",
                        labels=labels)
        parts.append(figure_html(svg, "Overall figures by audit round, 95% intervals shaded", "trend"))
    else:
        parts.append("<p>No audit round in scope.</p>")
    changes = report.changes

    def text(metric: str, value: float | None) -> str:
        return "-" if value is None else (f"{value:+.3f}" if monitor.metric(metric).signed else f"{value:.1%}")

    if changes:
        rows = [({"model": c.model, "metric": c.metric},
                 [Cell(c.model), Cell(monitor.metric(c.metric).label), Cell(monitor.category_label(c.category)),
                  Cell(text(c.metric, c.from_value), c.from_value, "from"),
                  Cell(text(c.metric, c.to_value), c.to_value, "to"),
                  Cell(str(c.run)), Cell(str(c.started)),
                  Cell(f"{c.p_adjusted:.2g}" if c.p_adjusted is not None else "-", c.p_adjusted, "p_adjusted")])
                for c in changes]
        parts.append(table("changes", ["model", "metric", "category", "from", "to", "round", "since round",
                                       "adjusted p"], rows))
    else:
        tested = sum(1 for c in report.comparisons if c.p is not None)
        parts.append(f"<p>No change detected ({tested} tests over {len(report.rounds)} round(s)).</p>")
    return section_html("trend", "Trend over audit rounds", *parts)


def render_html(report: MonitorReport, monitor: Monitor) -> str:
    from lhl_platform.report.html import CSS

    title = f"LegalHalluLens monitoring: {report.title}"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{escape(title)}</h1></header>{trend_section_html(report, monitor)}"
            f"<footer>Generated by <code>lhl monitor --suite {escape(report.suite)} --format html</code>. "
            "Self-contained: no script, nothing fetched.</footer></body></html>\n")


def render(report: MonitorReport, monitor: Monitor, fmt: str) -> str:
    if fmt == "json":
        return render_json(report)
    if fmt == "csv":
        return render_csv(report)
    if fmt == "html":
        return render_html(report, monitor)
    return render_text(report, monitor, fmt == "md")
