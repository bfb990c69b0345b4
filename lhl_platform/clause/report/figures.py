"""The clause report's figures, drawn with the shared primitives (`report/figures.py`) and returned as SVG text.

- `typed_haltp_figure`: HalTP per model, overall and per category, with 95% intervals.
- `rdi_forest_figure`: RDI per model, overall and per category, with 95% intervals around zero.
- `rank_heatmap_figure`: composite rank per model and scheme, each cell with its rank stability.
- `missing_figure`: missing rows per model, split into persistent and transient contracts (only when any).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lhl_platform.domain.taxonomy import CATEGORY_OF, CLAUSE_TYPES
from lhl_platform.report.figures import RC_PARAMS, Estimate, forest_plot, new_figure, to_svg
from lhl_platform.report.system_nature import by_model, shown_name

if TYPE_CHECKING:
    from lhl_platform.clause.report.rows import Report

CATEGORY_ORDER = ("numeric", "temporal", "factual", "obligation")


def category_sizes() -> dict[str, int]:
    """How many clause types each category has (numeric 5, temporal 6, factual 3, obligation 27)."""
    sizes: dict[str, int] = {}
    for clause in CLAUSE_TYPES:
        sizes[str(CATEGORY_OF[clause])] = sizes.get(str(CATEGORY_OF[clause]), 0) + 1
    return sizes


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
                                      ci.ci_low if ci else None, ci.ci_high if ci else None,
                                      ci.denominator if ci else None))
    groups = [_group_label(c, sizes) for c in categories]
    fig = new_figure(7.0, 0.9 + 0.24 * len(groups) * (len(models) + 1.4))
    ax = fig.add_subplot()
    forest_plot(ax, estimates, groups, models, scale=100, zero_line=False,
                xlabel="HalTP: share of found clauses whose content is wrong (%), with 95% interval",
                names=_names(report))
    ax.set_xlim(-2, 102)
    return to_svg(fig)


def _names(report: Report) -> dict[str, str]:
    """Each system's name as drawn: with what it is, where it is not a real model."""
    natures = by_model(report.systems)
    return {r.model: shown_name(r.model, natures) for r in report.leaderboard}


def rdi_forest_figure(report: Report) -> str:
    """RDI per model, overall and per category, with 95% bootstrap intervals around zero."""
    sizes = category_sizes()
    models = [r.model for r in report.leaderboard]
    present = {r.category for r in report.rdi}
    categories = [None, *(c for c in CATEGORY_ORDER if c in present)]
    estimates = [Estimate(_group_label(r.category, sizes), r.model, r.rdi, r.rdi_ci_low, r.rdi_ci_high,
                          r.contradicted) for r in report.rdi]
    groups = [_group_label(c, sizes) for c in categories]
    fig = new_figure(7.0, 0.9 + 0.24 * len(groups) * (len(models) + 1.4))
    ax = fig.add_subplot()
    forest_plot(ax, estimates, groups, models, scale=1, zero_line=True,
                xlabel="RDI: <- omission (missing conditions)   |   invention (extra conditions) ->",
                names=_names(report))
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
    fig = new_figure(1.6 + 1.25 * max(len(schemes), 1), 1.6 + 0.45 * max(len(models), 1))
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
    ax.set_yticks([i + 0.5 for i in range(len(models))], [_names(report).get(m, m) for m in models])
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
    fig = new_figure(7.0, 1.6 + 0.35 * len(rows))
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

    with rc_context(RC_PARAMS):
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
