"""The cost-over-time figure of the HTML report: each monitored model's cost per audit round, drawn as the report's
other figures are (`figures.py`: matplotlib's SVG backend, text kept as text, the same rows giving the same SVG).
A round of unknown cost is marked on the axis as unknown, never drawn at $0."""

from __future__ import annotations

from collections.abc import Sequence

from lhl_platform.report.figures import model_colors, new_figure, to_svg
from lhl_platform.report.marts import CostOverTimeRow


def cost_over_time_figure(rows: Sequence[CostOverTimeRow]) -> str:
    """One line per monitored model: USD per run (x: the run, labelled with its first day)."""
    models = list(dict.fromkeys(r.model for r in rows))
    colors = model_colors(models)
    runs = sorted({r.run for r in rows})
    first_day: dict[int, str] = {}
    for r in rows:
        first_day[r.run] = min(first_day.get(r.run, r.first_day), r.first_day)
    fig = new_figure(6.4, 2.4 + 0.15 * len(models))
    ax = fig.add_subplot()
    for model in models:
        own = [r for r in rows if r.model == model]
        known = [(r.run, r.cost_usd) for r in own if r.cost_usd is not None]
        ax.plot([run for run, _ in known], [cost for _, cost in known], marker="o", color=colors[model], label=model)
        for r in own:
            if r.cost_usd is None:  # unknown: named on the axis, not plotted as a value
                ax.annotate("unknown", (r.run, 0), xytext=(0, 4), textcoords="offset points", ha="center",
                            fontsize=7, color=colors[model])
    ax.set_xticks(runs, [f"run {run}\n{first_day[run]}" for run in runs])
    ax.set_ylabel("cost per run (USD)")
    ax.set_ylim(bottom=0)
    ax.grid(axis="y", color="#e5e5e5", linewidth=0.6)
    if models:
        ax.legend(loc="upper left", fontsize=7, frameon=False)
    return to_svg(fig)
