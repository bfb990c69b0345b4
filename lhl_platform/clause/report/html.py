"""The clause report as one self-contained HTML file (the shell, cells and tables are every suite's: `report/html.py`;
the figures `figures.py`). Every number in a table carries its exact value in `data-value`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from pydantic import BaseModel

from lhl_platform.clause.report.figures import CATEGORY_ORDER, category_sizes, report_figures
from lhl_platform.clause.report.marts import RateIntervalRow, RdiRow, RunSpreadRow
from lhl_platform.clause.report.render import (
    DEBATE_LINES,
    JUDGE_MARKS,
    contracts_line,
    debate_caption,
    debate_line,
    debate_system,
    judge_legend,
    judge_validated,
    matched_line,
    outside_names,
)
from lhl_platform.clause.report.rows import DebateEffectRow, Report
from lhl_platform.clause.report.stats import INTERVAL_METRICS, scheme_label
from lhl_platform.clause.report.verdict import clause_verdict, in_rank_order, standing
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.report.cost import cost_html
from lhl_platform.report.glossary import with_glossary_html
from lhl_platform.report.html import (
    CSS,
    Cell,
    checks_html,
    facts_html,
    figure_html,
    interval,
    name_cell,
    note_html,
    section_html,
    table,
    with_interval,
)
from lhl_platform.report.humane import humane_html
from lhl_platform.report.labels import FEW_CASES, FEW_MARK, pct, signed
from lhl_platform.report.layout import html_tables, view
from lhl_platform.report.system_nature import by_model, shown_name, systems_text
from lhl_platform.report.verdict_render import render_verdict_html
from lhl_platform.warehouse.scope import coverage_statement

RATE_LABELS = {"far": "FAR", "frr": "FRR", "acc": "Acc", "hal_tp": "HalTP", "hal_gen": "HalGen", "jeq": "JEq",
               "rdi": "RDI", "p_scope": "scope share", "p_missing": "missing share", "p_extra": "extra share"}
SMALL_TP = 30  # below this many found clauses a category's HalTP is flagged as resting on few instances

def _intervals(report: Report) -> dict[tuple[str, int | None, str | None, str], RateIntervalRow]:
    rows = report.statistics.rate_intervals if report.statistics else []
    return {(r.model, r.run, r.category, r.metric): r for r in rows}


# --- sections ------------------------------------------------------------------------------------------------


def _scope(report: Report) -> str:
    sc = report.scope
    prov = report.provenance
    sources = prov.sources if prov else []
    extract = sorted({f"{s.model_id or s.name} ({s.prompt_version})" for s in sources if s.role == "extractor"})
    versions = {v.judge: v.judge_version for v in report.judge_validation if v.judge_version}
    judges = sorted({f"{s.name}: {s.model_id or '?'}"  # one identity, as the judge validation section names it
                     + (f", version {versions[s.name]}" if s.name in versions else "")
                     + f", prompt {s.prompt_version or 'not versioned'}" for s in sources if s.role == "judge"})
    imported = sorted({s.model for s in sources if s.role == "imported"})
    debates = sorted({f"{s.model} debates {s.name} ({s.prompt_version})" for s in sources if s.role == "debate"})
    run_keys = sorted({f"{s.model}|{s.run}" for s in sources}) or [f"{m}|{r}" for m in sc.models for r in sc.runs]
    boot = report.statistics.bootstrap if report.statistics else None
    facts = [
        ("corpus", f"{sc.corpus_name or '–'}"),
        ("corpus id (content hash)", sc.corpus_id or "–"),
        ("contracts", contracts_line(report)),
        ("matched cells", matched_line(report)),
        ("runs", (", ".join(map(str, sc.runs)) or "–")
         + (f" (asked: {', '.join(map(str, asked))})" if (asked := _asked_runs(report)) != sc.runs else "")),
        ("models", systems_text(sc.models, report.systems)),
        ("evaluation judge", sc.judge),
        ("judge identity and prompt", "; ".join(judges) or "no recorded judge calls (imported verdicts)"),
        ("extraction prompts", "; ".join(extract) or "none recorded"),
        ("imported outcomes", ", ".join(imported) or "none"),
        *([("debate systems", "; ".join(debates))] if debates else []),
        ("run keys (model|run)", ", ".join(run_keys)),
        ("code version", f"lhl_platform {prov.code_version}" if prov else "–"),
    ]
    if boot is not None:
        facts.append(("intervals", f"{int(boot.level * 100)}% percentile bootstrap, {boot.resamples} resamples, "
                                   f"seed {boot.seed}, resampling {boot.unit}s"))
    return section_html("scope", "Scope and provenance",
                        "<p>Every figure below is computed within this scope: one corpus, these contracts and runs, "
                        "one evaluation judge. Cross-model figures (composite ranks) rank the systems that cover the "
                        "matched cells, on those cells only; a partial system is listed with its coverage.</p>",
                        facts_html(facts), _coverage_table(report))


def _asked_runs(report: Report) -> list[int]:
    return list(report.coverage[0].runs_asked) if report.coverage else list(report.scope.runs)


def _coverage_table(report: Report) -> str:
    """Every system's coverage statement (`scope_coverage`), the figures it rests on, and whether it is ranked."""
    rows = [({"model": c.model}, [
        Cell(c.model), Cell(f"{c.contracts_covered} of {c.contracts_asked}", c.contracts_covered, "contracts_covered"),
        Cell(str(c.contracts_missing), c.contracts_missing, "contracts_missing"),
        Cell(", ".join(map(str, c.runs_covered)) or "–", css="text"),
        Cell(str(c.missing_rows), c.missing_rows, "missing_rows"),
        Cell("yes" if c.ranked else "no (partial)", c.ranked, "ranked", "" if c.ranked else "weak"),
        Cell(coverage_statement(c.model_dump(), report.scope.subset), css="text")]) for c in report.coverage]
    what = "subset contracts" if report.scope.subset else "corpus contracts"
    return ("<h3>Coverage</h3>" + table("coverage", ["system", f"{what} covered", "not covered", "runs",
                                                      "missing rows", "ranked", "statement"], rows))


def _span(values: list[tuple[float, str]], fmt: Callable[[float], str]) -> str:
    low, high = min(values), max(values)
    return fmt(low[0]) if low[0] == high[0] else f"{fmt(low[0])} ({low[1]}) to {fmt(high[0])} ({high[1]})"


def scope_and_rdi(report: Report) -> str:
    """What the contradictions are made of and where RDI lies, from this report's own figures (overall rows):
    the shares add up to all contradicted clauses, the remainder named. Empty when no system has any."""
    rows = [r for r in report.rdi if r.category is None and r.contradicted]
    if not rows:
        return ""

    def shares(count: Callable[[RdiRow], int]) -> str:
        return _span([(count(r) / r.contradicted, r.model) for r in rows], pct)

    text = (f"Of the contradicted clauses of the {len(rows)} system{'s' if len(rows) > 1 else ''} here, scope "
            f"errors (a wrong or partial passage: no direction) are {shares(lambda r: r.n_scope)}; missing "
            f"conditions {shares(lambda r: r.n_missing_condition)}; extra conditions "
            f"{shares(lambda r: r.n_extra_condition)}; the rest (a changed number, date or obligation, or another "
            "change) "
            + shares(lambda r: r.contradicted - r.n_missing_condition - r.n_extra_condition - r.n_scope) + ".")
    rdis = [(r.rdi, r.model) for r in rows if r.rdi is not None]
    if rdis:
        text += f" RDI weighs extra against missing conditions only: {_span(rdis, signed)}."
    return text


def _notes(report: Report) -> str:
    notes = [
        "<b>Rates</b> are shares of instances; higher FAR, FRR, HalTP and HalGen are worse, higher Acc and JEq "
        "better. Missing rows (instances a model never returned) are excluded from every denominator and "
        "reported separately.",
        "<b>RDI is a direction, not a magnitude.</b> It is the net share of contradictions that add a condition "
        "(+) rather than drop one (−); compare HalTP for how much is wrong. " + escape(scope_and_rdi(report)),
    ]
    crossing = [f"{r.model} ({r.category or 'overall'})" for r in report.rdi
                if r.rdi_ci_low is not None and r.rdi_ci_high is not None and r.rdi_ci_low <= 0 <= r.rdi_ci_high]
    if crossing:
        notes.append("<b>Intervals that cross zero.</b> For " + escape(", ".join(crossing)) + " the 95% interval "
                     "of RDI includes 0: the data do not establish a direction there (hollow markers in the "
                     "forest plot).")
    sizes = category_sizes()
    small = [c for c in CATEGORY_ORDER if sizes.get(c, 0) <= 5]
    thin = sorted({f"{r.model} / {r.category} ({r.tp} found)" for r in report.typed_profiles if r.tp < SMALL_TP})
    notes.append("<b>Small categories.</b> " + escape(", ".join(f"{c} has {sizes[c]} clause types" for c in small))
                 + " (obligation has 27), so their per-category figures rest on far fewer instances and have "
                 "wider intervals." + (" Fewer than 30 found clauses behind HalTP: " + escape("; ".join(thin)) + "."
                                       if thin else ""))
    differing = [c for c in report.coverage if c.coverage_differs]
    if differing:
        notes.append("<b>Coverage differs.</b> Some systems were not audited on the same contracts and runs; the "
                     "leaderboard uses each system's own instances, and the composite ranks only the systems that "
                     f"cover the {report.scope.matched_contracts} matched contracts, on those: "
                     + escape("; ".join(coverage_statement(c.model_dump(), report.scope.subset) for c in differing))
                     + ".")
    notes.append("<b>The judge.</b> HalTP, HalGen, JEq and RDI depend on the evaluation judge "
                 f"(<code>{escape(report.scope.judge)}</code>); the intervals show sampling noise only, not the "
                 "judge's own errors.")
    return section_html("notes", "How to read this report", "".join(note_html(n) for n in notes))


def _json_bool(value: bool | None) -> str:
    return "" if value is None else str(value).lower()


def _judge_banner(report: Report) -> str:
    """First thing on the page when the scope's judge failed its validation or has none: every content figure
    below rests on its verdicts."""
    legend = judge_legend(report)
    if legend is None:
        return ""
    status = judge_validated(report)
    title = "Judge failed held-out validation." if status is False else "Judge not validated."
    return (f'<div class="note warn banner" id="judge-banner" data-judge="{escape(report.scope.judge, quote=True)}" '
            f'data-judge-validated="{_json_bool(status)}"><b>{title}</b> {escape(legend)}</div>')


def dense(table_html: str) -> str:
    """A table of many narrow columns, set closer so it fits the page."""
    return table_html.replace("<table ", '<table class="dense" ', 1)


def _leaderboard(report: Report) -> str:
    iv = _intervals(report)
    status = judge_validated(report)
    mark = JUDGE_MARKS[status]

    def content(value: float | None, text: str, metric: str) -> Cell:
        """A figure resting on the judge's verdicts: marked when that judge is not shown fit."""
        shown = text if value is None or not mark else f"{text} {mark}"
        return Cell(shown, value, metric, "weak" if mark and value is not None else "")

    headers = ["model", "rank", "runs", "contracts", "n", "FAR", "FRR", "Acc", "HalTP", "HalTP 95% CI", "HalGen", "JEq",
               "RDI", "RDI 95% CI", "missing"]
    contradicted = {r.model: r.contradicted for r in report.rdi if r.category is None}
    rows = []
    natures = by_model(report.systems)
    ranks = standing(report)
    for r in in_rank_order(report, report.leaderboard):
        hal = iv.get((r.model, None, None, "hal_tp"))
        few = contradicted.get(r.model, FEW_CASES) < FEW_CASES
        rows.append(({"model": r.model, "judge-validated": _json_bool(status)}, [
            name_cell(r.model, natures, r.model + (" *" if r.coverage_differs else "")),
            Cell(str(ranks.get(r.model, "–")), ranks.get(r.model), "rank"),
            Cell(str(r.runs), r.runs, "runs"), Cell(str(r.contracts), r.contracts, "contracts"),
            Cell(str(r.n), r.n, "n"),
            Cell(pct(r.far), r.far, "far"), Cell(pct(r.frr), r.frr, "frr"), Cell(pct(r.acc), r.acc, "acc"),
            content(r.hal_tp, pct(r.hal_tp), "hal_tp"),
            Cell(interval(hal.ci_low, hal.ci_high, n=hal.denominator) if hal else "–", css="ci"),
            content(r.hal_gen, pct(r.hal_gen), "hal_gen"), content(r.jeq, pct(r.jeq), "jeq"),
            content(r.rdi, signed(r.rdi), "rdi"),
            Cell(interval(r.rdi_ci_low, r.rdi_ci_high, signed, contradicted.get(r.model)),
                 css="ci weak" if few else "ci"),
            Cell(str(r.missing_rows), r.missing_rows, "missing_rows")]))
    extra = _few_rdi_note(report, overall=True)
    if any(r.coverage_differs for r in report.leaderboard):
        extra = ("<p>* coverage differs from the matched cells (see Coverage in the scope section); the composite "
                 "ranks only the systems that cover the matched cells.</p>")
    legend = judge_legend(report)
    if legend:
        extra += f'<p class="weak" data-legend="judge">{escape(legend)}</p>'
    return section_html("leaderboard", "Leaderboard (pooled over runs)", dense(table("leaderboard", headers, rows)),
                        extra)


def _few_rdi_note(report: Report, overall: bool) -> str:
    """Under a table whose RDI intervals rest on fewer than FEW_CASES contradicted clauses: which, and why it
    matters (an RDI of +1.000 [+1.000, +1.000] from 2 contradictions says nothing about the model)."""
    few = [f"{r.model}{'' if r.category is None else ' / ' + r.category} ({r.contradicted})" for r in report.rdi
           if r.rdi is not None and r.contradicted < FEW_CASES and (r.category is None or not overall)]
    if not few:
        return ""
    return (f'<p class="weak" data-note="few-cases">Brown RDI intervals rest on fewer than {FEW_CASES} contradicted '
            "clauses, too few to establish a direction: " + escape("; ".join(few)) + ".</p>")


def _typed(report: Report, svg: str) -> str:
    iv = _intervals(report)
    sizes = category_sizes()
    typed = {(r.model, r.category): r for r in report.typed_profiles}
    gaps = {g.model: g for g in report.gaps}
    headers = ["model", *(f"{c} ({sizes.get(c, 0)} types)" for c in CATEGORY_ORDER), "gap", "worst / best"]
    rows = []
    for lb in report.leaderboard:
        cells: list[Cell | str] = [Cell(lb.model)]
        for c in CATEGORY_ORDER:
            row, ci = typed.get((lb.model, c)), iv.get((lb.model, None, c, "hal_tp"))
            value = row.hal_tp if row else None
            text = pct(value) if ci is None else with_interval(pct(value), ci.ci_low, ci.ci_high, ci.denominator)
            weak = row is not None and row.tp < SMALL_TP
            cells.append(Cell(text, value, f"hal_tp:{c}", "weak" if weak else ""))
        gap = gaps.get(lb.model)
        cells.append(Cell(f"{100 * gap.gap:.1f} pp" if gap and gap.gap is not None else "–",
                          gap.gap if gap else None, "gap"))
        cells.append(Cell(f"{gap.max_category} / {gap.min_category}" if gap and gap.max_category else "–",
                          css="text"))
        rows.append(({"model": lb.model}, cells))
    return section_html(
        "typed-haltp", "Typed HalTP by category",
        figure_html(svg, "HalTP per model, overall and per category; bars are 95% bootstrap intervals.", "typed_haltp"),
        table("typed_haltp", headers, rows),
        "<p>Cells in brown rest on fewer than 30 found clauses. Gap is the spread of HalTP across a model's "
        "categories, in percentage points.</p>")


def _rdi(report: Report, svg: str) -> str:
    # shares of the contradicted clauses, adding up to all of them
    headers = ["model", "category", "contradicted", "missing", "extra", "scope", "scope 95% CI", "other", "RDI",
               "RDI 95% CI", "direction"]
    iv = _intervals(report)
    rows = []
    for r in report.rdi:
        crosses = r.rdi_ci_low is not None and r.rdi_ci_high is not None and r.rdi_ci_low <= 0 <= r.rdi_ci_high
        few = r.rdi is not None and r.contradicted < FEW_CASES
        direction = ("–" if r.rdi is None else "not established (interval includes 0)" if crosses
                     else "invention" if (r.rdi or 0) > 0 else "omission")
        if few:
            direction += f"; only {r.contradicted} contradicted, too few to rely on"
        share = iv.get((r.model, None, r.category, "p_scope"))
        other = r.p_other
        rows.append(({"model": r.model, "category": r.category or ""}, [
            Cell(r.model), Cell(r.category or "all", css="text"), Cell(str(r.contradicted), r.contradicted,
                                                                          "contradicted"),
            Cell(pct(r.p_missing), r.p_missing, "p_missing"), Cell(pct(r.p_extra), r.p_extra, "p_extra"),
            Cell(pct(r.p_scope), r.p_scope, "p_scope"),
            Cell(interval(share.ci_low, share.ci_high, n=r.contradicted) if share else "–", css="ci"),
            Cell(pct(other), other, "p_other"),
            Cell(signed(r.rdi), r.rdi, "rdi"),
            Cell(interval(r.rdi_ci_low, r.rdi_ci_high, signed, r.contradicted), css="ci weak" if few else "ci"),
            Cell(direction, css="text" + (" weak" if crosses or few else ""))]))
    return section_html(
        "rdi", "Risk Direction Index",
        figure_html(svg, "RDI with 95% bootstrap intervals, overall and per category. Left of the dashed line: the "
                    "model drops conditions the contract has; right: it adds conditions the contract lacks. Hollow "
                    "markers: the interval includes 0.", "rdi_forest"),
        note_html("RDI says which way a model's content errors lean, not how many there are. "
                  + escape(scope_and_rdi(report))),
        table("rdi", headers, rows), _few_rdi_note(report, overall=False))


def _composite(report: Report, svg: str) -> str:
    schemes = list(dict.fromkeys(c.scheme for c in report.composite))
    score = {(c.scheme, c.model): c for c in report.composite}
    stab = {(s.scheme, s.model): s for s in (report.statistics.rank_stability if report.statistics else [])}
    rows = []
    ranked = {c.model for c in report.coverage if c.ranked}
    for lb in report.leaderboard:
        cells: list[Cell | str] = [Cell(lb.model + ("" if lb.model in ranked else " (partial, not ranked)"))]
        for s in schemes:
            c, st = score.get((s, lb.model)), stab.get((s, lb.model))
            if c is None or c.score is None:
                cells.append(Cell("–", None, f"rank:{s}"))
                continue
            keep = "" if st is None or st.stability is None else f", kept in {pct(st.stability, 0)}"
            cells.append(Cell(f"#{c.rank} ({c.score:.2f}{keep})", c.rank, f"rank:{s}"))
        rows.append(({"model": lb.model}, cells))
    boot = report.statistics.bootstrap if report.statistics else None
    return section_html(
        "composite", "Composite ranks",
        figure_html(svg, "Rank per scheme (1 = best); the percentage is the share of contract-cluster bootstrap "
                    "resamples in which the model keeps that rank.", "composite_ranks"),
        table("composite", ["model", *map(scheme_label, schemes)], rows),
        "<p>Schemes weight FAR, FRR, Acc, HalGen and JEq (equal 1:1:1:1:1; fp_heavy 2:1:1:2:1; recall_heavy "
        "1:2:1:1:2; halluc_only HalGen alone; detection_only FAR, FRR, Acc). Ranks are computed on the matched "
        "contracts; a rank kept in under half of the resamples"
        + (f" ({boot.resamples} resamples)" if boot else "") + " is not a firm ordering.</p>")


def _rate_interval_table(rows_in: Sequence[RateIntervalRow]) -> tuple[str, int]:
    metrics = list(INTERVAL_METRICS)
    groups: dict[tuple[str, int | None, str | None], dict[str, RateIntervalRow]] = {}
    for iv in rows_in:
        groups.setdefault((iv.model, iv.run, iv.category), {})[iv.metric] = iv
    rows: list[tuple[dict[str, str], Sequence[Cell | str]]] = []
    for (model, run, category), by_metric in groups.items():
        label = "all" if run is None and category is None else f"run {run}" if run is not None else str(category)
        cells: list[Cell | str] = [Cell(model), Cell(label, css="text")]
        for m in metrics:
            found = by_metric.get(m)
            text = ("–" if found is None or found.value is None
                    else with_interval(pct(found.value), found.ci_low, found.ci_high, found.denominator))
            few = found is not None and found.value is not None and found.denominator < FEW_CASES
            cells.append(Cell(text + (f" {FEW_MARK}" if few else ""), found.value if found else None, m,
                              "weak" if few else ""))
        rows.append(({"model": model, "run": "" if run is None else str(run), "category": category or ""}, cells))
    return table("rate_intervals", ["model", "group", *(RATE_LABELS[m] for m in metrics)], rows), len(rows)


def _run_spread_table(rows_in: Sequence[RunSpreadRow]) -> str:
    spread: dict[tuple[str, str | None], dict[str, RunSpreadRow]] = {}
    for sp in rows_in:
        spread.setdefault((sp.model, sp.category), {})[sp.metric] = sp
    metrics = ["far", "frr", "acc", "hal_tp", "hal_gen", "jeq", "rdi"]
    rows: list[tuple[dict[str, str], Sequence[Cell | str]]] = []
    for (model, category), by_metric in spread.items():
        cells: list[Cell | str] = [Cell(model), Cell(category or "all", css="text")]
        for m in metrics:
            found = by_metric.get(m)
            if found is None or found.mean is None:
                cells.append(Cell("–", None, f"{m}_mean"))
                continue
            if m == "rdi":
                text = signed(found.mean) + ("" if found.sd is None else f" ± {found.sd:.3f}")
            else:
                text = pct(found.mean) + ("" if found.sd is None else f" ± {pct(found.sd)}")
            cells.append(Cell(text, found.mean, f"{m}_mean"))
        runs = next(iter(by_metric.values())).runs
        cells.append(Cell(str(runs), runs, "runs"))
        rows.append(({"model": model, "category": category or ""}, cells))
    return table("run_spread", ["model", "category", *(f"{RATE_LABELS[m]} mean ± SD" for m in metrics), "runs"],
                 rows)


def _scope_share_table(rows_in: Sequence[RateIntervalRow]) -> str:
    rows: list[tuple[dict[str, str], Sequence[Cell | str]]] = [
        ({"model": r.model, "category": r.category or ""},
         [Cell(r.model), Cell(r.category or "all", css="text"), Cell(str(r.numerator), r.numerator, "n_scope"),
          Cell(str(r.denominator), r.denominator, "contradicted"), Cell(pct(r.value), r.value, "p_scope"),
          Cell(interval(r.ci_low, r.ci_high, n=r.denominator), css="ci weak" if r.denominator < FEW_CASES else "ci")])
        for r in rows_in if r.metric == "p_scope" and r.run is None]
    return table("scope_share", ["model", "category", "scope errors", "contradicted", "scope share", "95% CI"],
                 rows)


def _statistics(report: Report) -> str:
    stats = report.statistics
    if stats is None:
        return ""
    intervals_table, n_rows = _rate_interval_table(stats.rate_intervals)
    return section_html(
        "statistics", "Statistics",
        "<h3>Run-to-run spread</h3><p>Mean and sample standard deviation of each rate across runs (no SD with a "
        "single run), pooled over categories and per category.</p>", _run_spread_table(stats.run_spread),
        "<h3>Scope errors among contradictions</h3><p>The share of contradicted clauses whose error is a wrong or "
        "partial passage; these carry no direction (RDI counts them in its denominator only).</p>",
        _scope_share_table(stats.rate_intervals),
        "<h3>Every rate with its 95% interval</h3>",
        f"<details><summary>Show {n_rows} rows (model pooled, per category and per run)</summary>"
        f"{intervals_table}<p class=\"weak\">{FEW_MARK} the interval rests on fewer than {FEW_CASES} instances."
        "</p></details>",
        _clause_profiles(report))


def _clause_profiles(report: Report) -> str:
    stats = report.statistics
    models = [r.model for r in report.leaderboard]
    by = {(r.model, r.clause_type): r for r in report.clause_profiles}
    means = {m.clause_type: m for m in (stats.clause_type_means if stats else [])}
    rows = []
    for clause, mean in means.items():
        cells: list[Cell | str] = [Cell(clause), Cell(mean.category, css="text")]
        for model in models:
            r = by.get((model, clause))
            cells.append(Cell(pct(r.hal_tp) if r else "–", r.hal_tp if r else None, f"hal_tp:{model}"))
        cells += [Cell(pct(mean.hal_tp_mean), mean.hal_tp_mean, "hal_tp_mean"),
                  Cell(pct(mean.frr_mean), mean.frr_mean, "frr_mean"),
                  Cell(pct(mean.far_mean), mean.far_mean, "far_mean")]
        rows.append(({"clause-type": clause}, cells))
    headers = ["clause type", "category", *(f"HalTP {m}" for m in models), "mean HalTP", "mean FRR", "mean FAR"]
    return ("<h3>Clause-type profiles</h3><p>HalTP per clause type and model, with the mean across models "
            "(models without a found clause of that type are left out of the mean).</p>"
            f"<details><summary>Show {len(rows)} clause types</summary>"
            + table("clause_profiles", headers, rows) + "</details>")


def _missing(report: Report, svg: str | None) -> str:
    stats = report.statistics
    summary = stats.missing_summary if stats else []
    rows = [({"model": m.model}, [
        Cell(m.model), Cell(str(m.nominal_rows), m.nominal_rows, "nominal_rows"),
        Cell(str(m.missing_rows), m.missing_rows, "missing_rows"),
        Cell(pct(m.missing_fraction, 2), m.missing_fraction, "missing_fraction"),
        Cell(str(m.contracts_incomplete), m.contracts_incomplete, "contracts_incomplete"),
        Cell(str(m.contracts_persistent), m.contracts_persistent, "contracts_persistent"),
        Cell(pct(m.persistent_fraction), m.persistent_fraction, "persistent_fraction"),
        Cell(pct(m.persistent_row_share), m.persistent_row_share, "persistent_row_share")]) for m in summary]
    per_run = table("missing_per_run", ["model", "run", "n returned", "missing rows"],
                    [({"model": r.model, "run": str(r.run)}, [Cell(r.model), Cell(str(r.run), r.run, "run"),
                                                              Cell(str(r.n), r.n, "n"),
                                                              Cell(str(r.missing_rows), r.missing_rows,
                                                                   "missing_rows")])
                     for r in report.per_run])
    total = sum(m.missing_rows for m in summary)
    lead = ("<p>No missing rows: every model returned every instance in scope.</p>" if total == 0 else
            "<p>Missing rows are instances a model never returned (failed or refused calls, contracts too long, "
            "clause types skipped). They are excluded from every denominator. A contract is <i>persistent</i> when "
            "it is incomplete in every audited run (an input the model cannot process); the persistent fraction is "
            "their share of the incomplete contracts.</p>")
    parts = [lead, table("missing_summary", ["model", "nominal rows", "missing rows", "missing share",
                                             "incomplete contracts", "persistent contracts", "persistent fraction",
                                             "rows in persistent contracts"], rows), per_run]
    incomplete = stats.missing_by_contract if stats else []
    if incomplete:
        by_contract = table("missing_by_contract", ["model", "contract", "missing rows", "incomplete in runs",
                                                    "runs audited", "persistent"],
                            [({"model": m.model, "contract": m.contract_id}, [
                                Cell(m.model), Cell(m.contract_id, css="text"),
                                Cell(str(m.missing_instances), m.missing_instances, "missing_instances"),
                                Cell(", ".join(map(str, m.incomplete_runs)), css="text"),
                                Cell(str(m.runs_audited), m.runs_audited, "runs_audited"),
                                Cell("yes" if m.persistent else "no", m.persistent, "persistent",
                                     "weak" if m.persistent else "")]) for m in incomplete])
        parts.append(f"<h3>Incomplete contracts</h3><details><summary>Show the {len(incomplete)} (model, contract) "
                     f"pairs with missing rows</summary>{by_contract}</details>")
    if svg is not None:
        parts.insert(1, figure_html(svg, "Missing rows per model, split by whether their contract is incomplete in "
                                    "every run.", "missing_rows"))
    return section_html("missing", "Missing rows", *parts)


def _usage(report: Report) -> str:
    rows = [({"model": u.model, "run": str(u.run)}, [
        Cell(u.model), Cell(str(u.run), u.run, "run"), Cell(str(u.extraction_calls), u.extraction_calls,
                                                            "extraction_calls"),
        Cell(str(u.judge_calls), u.judge_calls, "judge_calls"), Cell(f"{u.input_tokens:,}", u.input_tokens,
                                                                     "input_tokens"),
        Cell(f"{u.cached_tokens:,}", u.cached_tokens, "cached_tokens"),
        Cell(f"{u.output_tokens:,}", u.output_tokens, "output_tokens"),
        Cell("unknown" if u.cost_usd is None else f"${u.cost_usd:.2f}", u.cost_usd, "cost_usd")]) for u in report.usage]
    return section_html("usage", "Usage and cost", table("usage", ["model", "run", "extraction calls", "judge calls",
                                                                   "input tokens", "cached tokens", "output tokens",
                                                                   "cost (USD)"], rows))


def _generic_rows(name: str, items: Sequence[BaseModel]) -> str:
    """Any list of typed rows as the reader's tables (labels.py: labels, percent, split or transposed)."""
    return html_tables(view(name, [i.model_dump() for i in items]))


def _debate_effects(rows: Sequence[DebateEffectRow]) -> str:
    """Transposed: one column per debated system, one line per figure (base → debate), so it fits the page."""
    systems = [debate_system(r) for r in rows]
    body: list[tuple[dict[str, str], Sequence[Cell | str]]] = [
        ({"figure": key}, [Cell(title, css="text"), *(Cell(*debate_line(r, key, kind), f"{key}:{s}")
                                                      for r, s in zip(rows, systems, strict=True))])
        for key, title, kind in DEBATE_LINES]
    return table("debate_effects", ["", *systems], body)


def _debate(report: Report) -> str:
    effects = list(getattr(report, "debate_effects", []) or [])
    by_category = list(getattr(report, "debate_by_category", []) or [])
    if not effects and not by_category:
        return ""
    parts = [f'<p data-caption="debate">{escape(debate_caption(effects))}</p>' if effects else ""]
    if effects:
        parts.append(_debate_effects(effects))
    if by_category:
        parts += ["<h3>Per category (debate minus baseline)</h3>", _generic_rows("debate_by_category", by_category)]
    return section_html("debate", "Debate effects", *parts)


def _judge_validation(report: Report, checks: Sequence[CheckOutcome]) -> str:
    """The judge's validation status: the report's own section when it has one, else the validation check's
    result when that check ran, else a plain statement that none is part of the report."""
    title = "Judge validation"
    status = getattr(report, "judge_validation", None) or getattr(report, "judge_validations", None)
    held = list(getattr(report, "judge_heldout", []) or [])
    if isinstance(status, list) and status and isinstance(status[0], BaseModel):
        return section_html("judge-validation", title, _generic_rows("judge_validation", status),
                            *(("<h3>Held-out families (the gate)</h3>", _generic_rows("judge_heldout", held))
                              if held else ()))
    if isinstance(status, BaseModel):
        return section_html("judge-validation", title,
                            facts_html([(k, str(v)) for k, v in status.model_dump().items()]))
    if status:
        return section_html("judge-validation", title, f"<p>{escape(str(status))}</p>")
    found = [c for c in checks if c.name.startswith("judge_valid")]
    if found:
        return section_html("judge-validation", title, "".join(
            note_html(f"<b>{'PASS' if c.passed else 'FAIL'}</b> {escape(c.name)}: {escape(c.summary)}",
                      warn=not c.passed)
            for c in found))
    return section_html("judge-validation", title,
                        "<p>No validation result of the judge is part of this report: its verdicts have not been "
                        "checked on held-out evidence (<code>lhl judge validate</code>) in this scope. Read "
                        "content metrics as depending on an unvalidated judge.</p>")


SECTIONS = (("verdict", "Verdict"), ("glossary", "Terms"),  # the verdict first (docs/method.md, section 17)
            ("scope", "Scope and provenance"), ("notes", "How to read this report"), ("leaderboard", "Leaderboard"),
            ("typed-haltp", "Typed HalTP"), ("rdi", "Risk Direction Index"), ("composite", "Composite ranks"),
            ("statistics", "Statistics"), ("missing", "Missing rows"), ("usage", "Usage and cost"),
            ("cost", "Cost"),
            ("debate", "Debate effects"), ("judge-validation", "Judge validation"),
            ("trend", "Trend over audit rounds"), ("checks", "Checks"))


def _trend(report: Report) -> str:
    from lhl_platform.clause.monitor import MONITOR
    from lhl_platform.report.figures import naming
    from lhl_platform.report.monitor import trend_html

    with naming(_drawn_names(report)):  # the trend figure draws each system as the tables name it
        return trend_html(report.trend, MONITOR, "Clause extraction (CUAD)")


def _drawn_names(report: Report) -> dict[str, str]:
    natures = by_model(report.systems)
    return {n.model: shown_name(n.model, natures) for n in report.systems}


def render_html(report: Report, checks: Sequence[CheckOutcome] = ()) -> str:
    figures = report_figures(report)
    body = [
        render_verdict_html(clause_verdict(report)),
        _scope(report), _notes(report), _leaderboard(report), _typed(report, figures["typed_haltp"]),
        _rdi(report, figures["rdi_forest"]), _composite(report, figures["composite_ranks"]), _statistics(report),
        _missing(report, figures.get("missing_rows")), _usage(report), cost_html(report.cost), _debate(report),
        _judge_validation(report, checks), _trend(report),
        checks_html(checks),
    ]
    present = [(a, t) for a, t in SECTIONS if any(f'<section id="{a}">' in part for part in body)]
    nav = "<nav><ol>" + "".join(f'<li><a href="#{a}">{escape(t)}</a></li>' for a, t in present) + "</ol></nav>"
    sc = report.scope
    title = f"LegalHalluLens audit: {sc.corpus_name or 'report'}"
    version = report.provenance.code_version if report.provenance else ""
    lede = (f"{len(sc.models)} models, {sc.contracts} contracts, runs {', '.join(map(str, sc.runs))}, judge "
            f"{sc.judge}. Typed hallucination audit of contract clause extraction.")
    return with_glossary_html(humane_html("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{escape(title)}</h1><p class=\"lede\">{escape(lede)}</p>{_judge_banner(report)}</header>"
            f"{nav}"
            + "".join(body)
            + f"<footer>Generated by <code>lhl report --format html</code>, <code>lhl_platform</code> "
              f"{escape(version)}. Self-contained: no script, nothing fetched.</footer></body></html>\n",
            outside_names(report)))
