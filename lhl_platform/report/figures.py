"""The report's figures, drawn with matplotlib's SVG backend and returned as SVG text.

Each figure is self-contained SVG (no external font, image or script), so it can be inlined into the HTML
report or attached to a Dagster asset as a data URI. Text stays text (`svg.fonttype: none`) and element ids are
salted with a fixed string, so the same report gives the same SVG.

- `typed_haltp_figure`: HalTP per model, overall and per category, with 95% intervals.
- `rdi_forest_figure`: RDI per model, overall and per category, with 95% intervals around zero.
- `rank_heatmap_figure`: composite rank per model and scheme, each cell with its rank stability.
- `missing_figure`: missing rows per model, split into persistent and transient contracts (only when any).
- `leaderboard_strip`: a suite leaderboard's headline figure per system with its interval (plain SVG).
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lhl_platform.domain.taxonomy import CATEGORY_OF, CLAUSE_TYPES

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from lhl_platform.report.layout import View
    from lhl_platform.report.rows import Report

CATEGORY_ORDER = ("numeric", "temporal", "factual", "obligation")
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
           "#bcbd22")
_RC: Any = {"svg.fonttype": "none", "svg.hashsalt": "lhl-report", "font.family": "sans-serif",
       "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"], "font.size": 9,
       "axes.spines.top": False, "axes.spines.right": False}
_PROLOGUE = re.compile(r"^.*?(?=<svg)", re.DOTALL)


def category_sizes() -> dict[str, int]:
    """How many clause types each category has (numeric 5, temporal 6, factual 3, obligation 27)."""
    sizes: dict[str, int] = {}
    for clause in CLAUSE_TYPES:
        sizes[str(CATEGORY_OF[clause])] = sizes.get(str(CATEGORY_OF[clause]), 0) + 1
    return sizes


def model_colors(models: Sequence[str]) -> dict[str, str]:
    return {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(models)}


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def to_svg(fig: Figure) -> str:
    """The figure as inline SVG: no XML prologue, no doctype, no metadata block."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buffer, format="svg", bbox_inches="tight",
                    metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    svg = _PROLOGUE.sub("", buffer.getvalue(), count=1)
    return re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)


def data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


@dataclass
class Estimate:
    """One row of a forest plot: a point with its interval (any of them may be missing)."""

    group: str
    model: str
    value: float | None
    low: float | None
    high: float | None


def _forest(ax: Axes, estimates: list[Estimate], groups: Sequence[str], models: Sequence[str], *, scale: float,
            zero_line: bool, xlabel: str) -> None:
    """Rows grouped by `groups` (top to bottom), one per model; hollow markers where the interval crosses 0."""
    colors = model_colors(models)
    by_key = {(e.group, e.model): e for e in estimates}
    y = 0.0
    ticks: list[float] = []
    labels: list[str] = []
    headers: set[int] = set()
    for group in groups:
        headers.add(len(ticks))
        ticks.append(y)
        labels.append(group)
        y += 1
        for model in models:
            e = by_key.get((group, model))
            ticks.append(y)
            labels.append(model)
            if e is not None and e.value is not None:
                crosses = zero_line and e.low is not None and e.high is not None and e.low <= 0 <= e.high
                if e.low is not None and e.high is not None:
                    ax.hlines(y, e.low * scale, e.high * scale, color=colors[model], linewidth=2)
                ax.plot([e.value * scale], [y], marker="o", markersize=6, color=colors[model],
                        markerfacecolor="white" if crosses else colors[model], zorder=3)
            else:
                ax.text(0.5 if zero_line else 0.01, y, "no value", transform=ax.get_yaxis_transform(),
                        ha="left", va="center", fontsize=7, color="#777777")
            y += 1
        y += 0.4
    if zero_line:
        ax.axvline(0, color="#555555", linewidth=0.8, linestyle="--")
    ax.set_yticks(ticks, labels)
    for i, label in enumerate(ax.get_yticklabels()):
        if i in headers:  # group headings: bold, without a tick mark
            label.set_fontweight("bold")
            ax.yaxis.get_major_ticks()[i].tick1line.set_visible(False)
    ax.set_ylim(y - 0.4, -0.6)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", color="#e5e5e5", linewidth=0.6)
    ax.set_axisbelow(True)


def _group_label(category: str | None, sizes: dict[str, int]) -> str:
    if category is None:
        return "all categories"
    n = sizes.get(category)
    return f"{category} ({n} clause types)" if n else category


def typed_haltp_figure(report: Report) -> str:
    """HalTP (%) per model, overall and per category, with the 95% intervals of `statistics.rate_intervals`."""
    sizes = category_sizes()
    models = [r.model for r in report.leaderboard]
    intervals = {(r.model, r.category): r for r in (report.statistics.rate_intervals if report.statistics else [])
                 if r.metric == "hal_tp" and r.run is None}
    values: dict[tuple[str, str | None], float | None] = {(r.model, None): r.hal_tp for r in report.leaderboard}
    values |= {(r.model, r.category): r.hal_tp for r in report.typed_profiles}
    categories = [None, *(c for c in CATEGORY_ORDER if any(r.category == c for r in report.typed_profiles))]
    estimates = []
    for category in categories:
        for model in models:
            ci = intervals.get((model, category))
            estimates.append(Estimate(_group_label(category, sizes), model, values.get((model, category)),
                                      ci.ci_low if ci else None, ci.ci_high if ci else None))
    groups = [_group_label(c, sizes) for c in categories]
    fig = _figure(7.0, 0.9 + 0.24 * len(groups) * (len(models) + 1.4))
    ax = fig.add_subplot()
    _forest(ax, estimates, groups, models, scale=100, zero_line=False,
            xlabel="HalTP: share of found clauses whose content is wrong (%), with 95% interval")
    ax.set_xlim(-2, 102)
    return to_svg(fig)


def rdi_forest_figure(report: Report) -> str:
    """RDI per model, overall and per category, with 95% bootstrap intervals around zero."""
    sizes = category_sizes()
    models = [r.model for r in report.leaderboard]
    present = {r.category for r in report.rdi}
    categories = [None, *(c for c in CATEGORY_ORDER if c in present)]
    estimates = [Estimate(_group_label(r.category, sizes), r.model, r.rdi, r.rdi_ci_low, r.rdi_ci_high)
                 for r in report.rdi]
    groups = [_group_label(c, sizes) for c in categories]
    fig = _figure(7.0, 0.9 + 0.24 * len(groups) * (len(models) + 1.4))
    ax = fig.add_subplot()
    _forest(ax, estimates, groups, models, scale=1, zero_line=True,
            xlabel="RDI: <- omission (missing conditions)   |   invention (extra conditions) ->")
    values = [v for e in estimates for v in (e.value, e.low, e.high) if v is not None]
    bound = min(1.05, max([abs(v) for v in values] + [0.05]) * 1.1)
    ax.set_xlim(-bound, bound)
    return to_svg(fig)


def rank_heatmap_figure(report: Report) -> str:
    """Composite rank per model (rows) and scheme (columns); each cell shows the rank and its stability."""
    import numpy as np

    schemes = list(dict.fromkeys(c.scheme for c in report.composite))
    ranked = {c.model for c in report.coverage if c.ranked} if report.coverage else None
    models = [r.model for r in report.leaderboard if ranked is None or r.model in ranked]  # partial ones: not ranked
    ranks = {(c.scheme, c.model): c.rank for c in report.composite}
    stability = {(s.scheme, s.model): s.stability
                 for s in (report.statistics.rank_stability if report.statistics else [])}
    grid = np.array([[np.nan if ranks.get((s, m)) is None else float(ranks[(s, m)] or 0) for s in schemes]
                     for m in models])
    fig = _figure(1.6 + 1.25 * max(len(schemes), 1), 1.6 + 0.45 * max(len(models), 1))
    ax = fig.add_subplot()
    if grid.size:  # vector cells (pcolormesh), not an embedded bitmap
        ax.pcolormesh(np.ma.masked_invalid(grid), cmap="YlGn_r", vmin=1, vmax=max(len(models), 2) + 0.5,
                      edgecolors="white", linewidth=1.5)
    for i, model in enumerate(models):
        for j, scheme in enumerate(schemes):
            rank, share = ranks.get((scheme, model)), stability.get((scheme, model))
            text = "-" if rank is None else f"#{rank}" + ("" if share is None else f"\n{100 * share:.0f}%")
            dark = rank is not None and rank <= max(1, len(models) // 2)
            ax.text(j + 0.5, i + 0.5, text, ha="center", va="center", fontsize=8, color="white" if dark else "black")
    ax.set_xticks([j + 0.5 for j in range(len(schemes))], schemes, rotation=20, ha="right")
    ax.set_yticks([i + 0.5 for i in range(len(models))], models)
    ax.set_xlim(0, max(len(schemes), 1))
    ax.set_ylim(max(len(models), 1), 0)
    ax.spines[:].set_visible(False)
    ax.set_title("Composite rank (1 = best) and share of resamples keeping it", fontsize=9)
    return to_svg(fig)


def missing_figure(report: Report) -> str | None:
    """Missing rows per model: those in persistently incomplete contracts and the rest; None when none."""
    rows = report.statistics.missing_summary if report.statistics else []
    if not any(r.missing_rows for r in rows):
        return None
    fig = _figure(7.0, 1.6 + 0.35 * len(rows))
    ax = fig.add_subplot()
    names = [r.model for r in rows]
    persistent = [r.persistent_missing_rows for r in rows]
    transient = [r.missing_rows - r.persistent_missing_rows for r in rows]
    ax.barh(names, persistent, color="#b2182b", label="in contracts incomplete in every run (persistent)")
    ax.barh(names, transient, left=persistent, color="#f4a582", label="in contracts incomplete in some runs")
    ax.invert_yaxis()
    ax.set_xlabel("missing rows (instances never returned)")
    ax.legend(fontsize=7, loc="lower right", frameon=False)
    return to_svg(fig)


def report_figures(report: Report) -> dict[str, str]:
    """Every figure of the report by name (SVG text); the missing-rows figure only when rows are missing."""
    from matplotlib import rc_context

    with rc_context(_RC):
        figures = {"typed_haltp": typed_haltp_figure(report), "rdi_forest": rdi_forest_figure(report),
                   "composite_ranks": rank_heatmap_figure(report)}
        missing = missing_figure(report)
    if missing is not None:
        figures["missing_rows"] = missing
    return figures


# Which mart each figure belongs to, for the Dagster asset metadata.
FIGURE_MARTS: dict[str, str] = {"typed_haltp": "typed_profiles", "rdi_forest": "rdi",
                                "composite_ranks": "composite_ranks", "missing_rows": "missing_summary"}
FIGURE_TITLES: dict[str, str] = {
    "typed_haltp": "Typed HalTP by model and category (95% intervals)",
    "rdi_forest": "RDI forest plot, overall and per category (95% intervals)",
    "composite_ranks": "Composite ranks under five schemes, with rank stability",
    "missing_rows": "Missing rows: persistent and transient",
}


def mart_figures(report: Report) -> dict[str, dict[str, Any]]:
    """Figures grouped by the mart they describe: {mart: {title: svg}}."""
    out: dict[str, dict[str, Any]] = {}
    for name, svg in report_figures(report).items():
        out.setdefault(FIGURE_MARTS[name], {})[FIGURE_TITLES[name]] = svg
    return out


# A suite leaderboard's headline figure with its interval, drawn as plain SVG (no matplotlib: it is small and
# needs no axes beyond a 0-100% scale), one line per system in the leaderboard's order.
_STRIP_W, _STRIP_LABEL, _STRIP_ROW = 640, 210, 22


def leaderboard_strip(view: View) -> tuple[str, str] | None:
    """(svg, caption) of the leaderboard's first interval column, or None when it has none; a system without a
    figure (incomplete) is listed and says so, never drawn at zero."""
    from html import escape

    from lhl_platform.report.labels import FEW_MARK, few_cases, label

    col = next((c for c in [*view.main, *view.detail] if c.interval and c.key in view.rows[0]), None)
    if col is None or not view.rows:
        return None
    plot_w = _STRIP_W - _STRIP_LABEL - 70
    height = 26 + _STRIP_ROW * len(view.rows) + 18

    def x(v: float) -> float:
        return round(_STRIP_LABEL + plot_w * min(max(v, 0.0), 1.0), 1)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_STRIP_W} {height}" width="{_STRIP_W}" '
             f'height="{height}" role="img" font-family="DejaVu Sans, Arial, sans-serif" font-size="11">']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line x1="{x(tick)}" y1="18" x2="{x(tick)}" y2="{height - 16}" stroke="#e5e5e5"/>'
                     f'<text x="{x(tick)}" y="{height - 4}" text-anchor="middle" fill="#5b6670">'
                     f'{int(tick * 100)}%</text>')
    colors = model_colors([str(r.get("model")) for r in view.rows])
    few = False
    for i, row in enumerate(view.rows):
        y = 26 + _STRIP_ROW * i + _STRIP_ROW / 2
        name = str(row.get("model"))
        shown = escape(view.text(view.main[0], row))
        parts.append(f'<text x="{_STRIP_LABEL - 8}" y="{y + 4}" text-anchor="end">{shown}</text>')
        value, low, high = row.get(col.key), row.get(col.low or ""), row.get(col.high or "")
        if value is None:
            parts.append(f'<text x="{_STRIP_LABEL + 4}" y="{y + 4}" fill="#8a4b00">no overall figure</text>')
            continue
        color = colors[name]
        if low is not None and high is not None:
            parts.append(f'<line x1="{x(low)}" y1="{y}" x2="{x(high)}" y2="{y}" stroke="{color}" stroke-width="3"/>')
        mark = f" {FEW_MARK}" if few_cases(row) is not None else ""
        few = few or bool(mark)
        parts.append(f'<circle cx="{x(value)}" cy="{y}" r="5" fill="{color}"/>'
                     f'<text x="{_STRIP_LABEL + plot_w + 8}" y="{y + 4}">{100 * value:.1f}%{mark}</text>')
    parts.append("</svg>")
    caption = (f"{label(col.key).capitalize()} per system with its 95% interval (bar), ranked systems first"
               + (f"; {FEW_MARK} the interval rests on fewer than 20 cases" if few else "") + ".")
    return "".join(parts), caption
