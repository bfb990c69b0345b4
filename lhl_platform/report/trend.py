"""The trend figure: small multiples, one panel per headline metric (the overall figure), one line per model over
the audit rounds, each round's 95% interval shaded, a partial round drawn hollow, a detected change ringed."""

from __future__ import annotations

from collections.abc import Sequence

from lhl_platform.monitoring.declaration import Monitor
from lhl_platform.monitoring.series import Point


def trend_svg(monitor: Monitor, points: Sequence[Point], changed: set[tuple[str, str, int]], *, title: str,
              labels: dict[str, str] | None = None) -> str:
    """`changed`: the (model, metric, run) whose overall figure changed in that round."""
    from lhl_platform.report.figures import drawn_name, model_colors, new_figure, to_svg

    overall = [p for p in points if p.category is None]
    metrics = [m for m in monitor.metrics if any(p.metric == m.key for p in overall)]
    models = sorted({p.model for p in overall})
    colors = model_colors(models)
    columns = min(3, max(len(metrics), 1))
    rows = (len(metrics) + columns - 1) // columns or 1
    fig = new_figure(10.0, 0.6 + 2.3 * rows)  # 10 in at 96 dpi fits a 1,280 px page with its margins
    shown = labels or {}
    for i, metric in enumerate(metrics):
        ax = fig.add_subplot(rows, columns, i + 1)
        for model in models:
            mine = sorted((p for p in overall if p.model == model and p.metric == metric.key), key=lambda p: p.run)
            # a null is a gap, never drawn as 0
            drawn = [(p, p.value) for p in mine if p.value is not None]
            if not drawn:
                continue
            color = colors[model]
            xs = [p.run for p, _ in drawn]
            ys = [v for _, v in drawn]
            ax.plot(xs, ys, color=color, linewidth=1.2, label=shown.get(model) or drawn_name(model))
            ax.fill_between(xs, [v if p.ci_low is None else p.ci_low for p, v in drawn],
                            [v if p.ci_high is None else p.ci_high for p, v in drawn], color=color, alpha=0.15,
                            linewidth=0)
            for p, v in drawn:
                ax.plot([p.run], [v], marker="o", markersize=4, color=color,
                        markerfacecolor="white" if p.partial else color)
                if (model, metric.key, p.run) in changed:
                    ax.plot([p.run], [v], marker="o", markersize=11, markerfacecolor="none",
                            markeredgecolor="black", markeredgewidth=1.2)
        ax.set_title(metric.label, fontsize=9)
        ax.set_xlabel("audit round (run)", fontsize=8)
        ax.set_ylim(metric.low - 0.02 * (metric.high - metric.low), metric.high + 0.02 * (metric.high - metric.low))
        runs = sorted({p.run for p in overall})
        if runs:
            ax.set_xticks(runs)
        ax.tick_params(labelsize=7)
        ax.grid(True, linewidth=0.3, alpha=0.5)
    if metrics:
        fig.axes[0].legend(fontsize=7, loc="best")
    fig.suptitle(title, fontsize=10)
    return to_svg(fig)
