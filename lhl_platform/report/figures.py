"""Figure primitives every suite's report draws with: matplotlib's SVG backend returning SVG text, the palette, a
forest plot of estimates with intervals, and a leaderboard's headline strip.

Each figure is self-contained SVG (no external font, image or script), so it can be inlined into the HTML
report or attached to a Dagster asset as a data URI. Text stays text (`svg.fonttype: none`) and element ids are
salted with a fixed string, so the same report gives the same SVG. A suite's own figures are its own (the clause
suite's: `lhl_platform/clause/report/figures.py`).

- `leaderboard_strip`: a suite leaderboard's headline figure per system with its interval (plain SVG).
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from lhl_platform.report.layout import View

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
           "#bcbd22")
RC_PARAMS: Any = {"svg.fonttype": "none", "svg.hashsalt": "lhl-report", "font.family": "sans-serif",
              "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"], "font.size": 9,
              "axes.spines.top": False, "axes.spines.right": False}
_PROLOGUE = re.compile(r"^.*?(?=<svg)", re.DOTALL)


def model_colors(models: Sequence[str]) -> dict[str, str]:
    return {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(models)}


def new_figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def to_svg(fig: Figure) -> str:
    """The figure as inline SVG: no XML prologue, no doctype, no metadata block."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(RC_PARAMS):
        fig.savefig(buffer, format="svg", bbox_inches="tight",
                    metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    svg = _PROLOGUE.sub("", buffer.getvalue(), count=1)
    return re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)


def data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


# The names figures draw systems by, set by the page being rendered (`naming`): a system that is not a real model is
# drawn with what it is (`report/system_nature.py`), as the page's tables name it, without every figure taking them.
_NAMES: ContextVar[Mapping[str, str] | None] = ContextVar("lhl_figure_names", default=None)


@contextmanager
def naming(names: Mapping[str, str]) -> Iterator[None]:
    token = _NAMES.set(names)
    try:
        yield
    finally:
        _NAMES.reset(token)


def drawn_name(model: str) -> str:
    """The system's name as the figures of the page being rendered draw it."""
    return (_NAMES.get() or {}).get(model, model)


@dataclass
class Estimate:
    """One row of a forest plot: a point with its interval (any of them may be missing)."""

    group: str
    model: str
    value: float | None
    low: float | None
    high: float | None
    n: int | None = None  # the cases the interval rests on, where known


def forest_plot(ax: Axes, estimates: list[Estimate], groups: Sequence[str], models: Sequence[str], *, scale: float,
                zero_line: bool, xlabel: str, names: Mapping[str, str] | None = None) -> None:
    """Rows grouped by `groups` (top to bottom), one per model (labelled by `names`, else the model); hollow
    markers where the interval crosses 0. An estimate on fewer than FEW_CASES cases is drawn hollow and grey with
    its n beside it, never as a solid point (its SVG group id `few-cases`)."""
    from lhl_platform.report.labels import FEW_CASES

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
            labels.append((names or {}).get(model) or drawn_name(model))
            if e is not None and e.value is not None:
                crosses = zero_line and e.low is not None and e.high is not None and e.low <= 0 <= e.high
                few = e.n is not None and e.n < FEW_CASES
                color = "#9aa3ab" if few else colors[model]
                if e.low is not None and e.high is not None:
                    ax.hlines(y, e.low * scale, e.high * scale, color=color, linewidth=2,
                              linestyles="dotted" if few else "solid")
                ax.plot([e.value * scale], [y], marker="o", markersize=6, color=color,
                        markerfacecolor="white" if crosses or few else color, zorder=3,
                        gid="few-cases" if few else None)
                if few:
                    ax.annotate(f"n={e.n}", (e.value * scale, y), xytext=(6, -3), textcoords="offset points",
                                fontsize=6.5, color="#5b6670")
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
        small = few_cases(row)
        color = "#9aa3ab" if small else colors[name]  # on few cases: grey and hollow, with its n
        if low is not None and high is not None:
            parts.append(f'<line x1="{x(low)}" y1="{y}" x2="{x(high)}" y2="{y}" stroke="{color}" stroke-width="3"'
                         + (' stroke-dasharray="3 2"' if small else "") + "/>")
        mark = f" {FEW_MARK} n={small[1]}" if small is not None else ""
        few = few or bool(mark)
        dot = (f'fill="white" stroke="{color}" stroke-width="2" data-few-cases="{small[1]}"' if small
               else f'fill="{color}"')
        parts.append(f'<circle cx="{x(value)}" cy="{y}" r="5" {dot}/>'
                     f'<text x="{_STRIP_LABEL + plot_w + 8}" y="{y + 4}">{100 * value:.1f}%{mark}</text>')
    parts.append("</svg>")
    caption = (f"{label(col.key).capitalize()} per system with its 95% interval (bar), ranked systems first"
               + (f"; hollow, grey and {FEW_MARK}: the interval rests on fewer than 20 cases (its n beside it)"
                  if few else "") + ".")
    return "".join(parts), caption
