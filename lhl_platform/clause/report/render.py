"""Render the clause report: aligned text tables or Markdown (with the check results), JSON, CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from typing import Any

from lhl_platform.clause.report.rows import METRIC_COLUMNS, DebateEffectRow, Report
from lhl_platform.clause.report.stats import scheme_label
from lhl_platform.clause.report.verdict import clause_verdict, in_rank_order, rank_text
from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.report.cost import CSV_COLUMNS as COST_CSV_COLUMNS
from lhl_platform.report.cost import cost_csv_rows, cost_lines
from lhl_platform.report.glossary import with_glossary
from lhl_platform.report.humane import humane_markdown
from lhl_platform.report.labels import FEW_CASES, FEW_MARK, point_text
from lhl_platform.report.layout import inert, text_table
from lhl_platform.report.system_nature import by_model, shown_name, systems_text
from lhl_platform.report.verdict_render import VERDICT_CSV_COLUMNS, render_verdict_text, verdict_csv_rows
from lhl_platform.warehouse.scope import coverage_statement


def _ci(low: float | None, high: float | None, n: int | None) -> str:
    """An RDI interval as text: `[low, high]`, a point one as `labels.point_text` says."""
    if low is not None and low == high:
        return point_text(_signed(low), n)
    return f"[{_signed(low)}, {_signed(high)}]"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


FEW_RDI = (f"{FEW_MARK} the RDI interval rests on fewer than {FEW_CASES} contradicted clauses: too few to establish "
           "a direction.")

# Beside every content figure (HalTP, HalGen, JEq, RDI) whose judge failed its validation, or has none.
JUDGE_MARKS: dict[bool | None, str] = {True: "", False: "!", None: "?"}


def judge_validated(report: Report) -> bool | None:
    """The scope's judge on held-out evidence for the scope's corpus: validated (passed every held-out set shipped
    now), failed, or None when it has no such result there. Every content figure of the report rests on this one
    judge's verdicts."""
    return report.judge_validation[0].passed if report.judge_validation else None


def judge_shortfall(report: Report) -> str:
    """Where the scope's judge falls short on held-out evidence, in a few words ("" when it does not)."""
    failing = [f"{r.set} {r.family.replace('_', ' ')}: right on {_pct(r.accuracy_decided)}% of {r.decided} decided"
               + (f" ({_pct(r.decided_share)}% of its items decided)" if r.decided_share is not None
                  and r.decided_share < 1 else "")
               + (f", right mismatch type {_pct(r.right_mismatch)}%" if r.right_mismatch is not None else "")
               for r in report.judge_heldout if not r.passed]
    return "; ".join(failing)


def judge_legend(report: Report) -> str | None:
    """What the marker beside the content figures means, or None when the scope's judge passed its validation."""
    status, judge = judge_validated(report), report.scope.judge
    if status:
        return None
    how = f"(`lhl judge validate --judge {judge}`, or `--judge` a judge that passes)"
    if status is False:
        where = judge_shortfall(report)
        return (f"{JUDGE_MARKS[False]} judge {judge} FAILED held-out validation{f' ({where})' if where else ''}: "
                f"HalTP, HalGen, JEq and RDI rest on verdicts not shown to read legal force on text its rules were "
                f"not written from {how}")
    return (f"{JUDGE_MARKS[None]} judge {judge} has not been validated on held-out evidence for this corpus: HalTP, "
            f"HalGen, JEq and RDI rest on an unvalidated judge {how}")


def _marked(text: str, value: float | None, mark: str) -> str:
    return text if value is None or not mark else f"{text} {mark}"


def render_text(report: Report, checks: list[CheckOutcome], markdown: bool = False) -> str:
    def h(title: str) -> str:
        return f"## {title}" if markdown else f"{title}\n{'=' * len(title)}"

    def t(text: str) -> str:
        return inert(text, markdown)

    def gap(model: str) -> str:  # percentage points
        return _pct(gaps[model].gap) + " pp" * markdown if model in gaps else "-"

    contradicted = {r.model: r.contradicted for r in report.rdi if r.category is None}

    def few(model: str) -> str:  # in Markdown, beside an RDI interval resting on fewer than FEW_CASES clauses
        return f" {FEW_MARK}" if markdown and contradicted.get(model, FEW_CASES) < FEW_CASES else ""

    def rate(value: float | None) -> str:  # percent in Markdown; the terminal table's title says "in %"
        return _pct(value) + ("%" if markdown and value is not None else "")

    sc = report.scope
    natures = by_model(report.systems)
    # systems whose cells differ, or whose TPs the judge labelled only in part: their content figures' cells
    partial = [c for c in report.coverage if c.coverage_differs or c.judged_tp < c.true_positives]
    status = judge_validated(report)
    mark = JUDGE_MARKS[status]
    judged = {True: "validated on held-out evidence", False: f"FAILED held-out validation; figures marked {mark}",
              None: f"not validated on held-out evidence; figures marked {mark}"}[status]
    out = [*render_verdict_text(clause_verdict(report), markdown),  # the verdict first (docs/method.md, 17)
           h("Scope"), *(f"{'- ' if markdown else ''}{line}" for line in (
        f"corpus:    {t(str(sc.corpus_name))} ({t(str(sc.corpus_id))})",
        f"contracts: {contracts_line(report)}",
        f"matched:   {matched_line(report)}",
        f"runs:      {', '.join(map(str, sc.runs))}" + _runs_asked(report),
        f"judge:     {t(sc.judge)} ({judged})",
        f"models:    {t(systems_text(sc.models, report.systems))}",
        *(f"coverage:  {t(coverage_statement(c.model_dump(), sc.subset))}" for c in partial))), ""]
    out.append(h("Leaderboard (pooled over runs; rates in %)"))
    out.append(text_table(
        ["model", "rank", "runs", "contracts", "n", "FAR", "FRR", "Acc", "HalTP", "HalGen", "JEq", "RDI [95% CI]",
         "missing"],
        [[shown_name(r.model, natures) + (" *" if r.coverage_differs else ""), rank_text(report, r.model),
          str(r.runs), str(r.contracts), str(r.n), rate(r.far),
          rate(r.frr), rate(r.acc), _marked(rate(r.hal_tp), r.hal_tp, mark),
          _marked(rate(r.hal_gen), r.hal_gen, mark), _marked(rate(r.jeq), r.jeq, mark),
          f"{_marked(_signed(r.rdi), r.rdi, mark)} {_ci(r.rdi_ci_low, r.rdi_ci_high, contradicted.get(r.model))}"
          + few(r.model), str(r.missing_rows)]
         for r in in_rank_order(report, report.leaderboard)], markdown))
    if markdown and any(few(r.model) for r in report.leaderboard):
        out.extend(["", FEW_RDI])
    legend = judge_legend(report)
    if legend:  # in Markdown after a blank line: a plain line right under a table is one more row of it
        out.extend(["", t(legend)] if markdown else [t(legend)])
    if partial:
        out.append("* coverage differs from the matched cells (see coverage above); each row is on the system's own "
                   "cells, and the composite ranks only the systems that cover the matched cells, on those cells")
    out.append("")
    out.append(h("Typed HalTP by category (%), with Gap (pp)"))
    categories = ["numeric", "obligation", "factual", "temporal"]
    typed = {(r.model, r.category): r for r in report.typed_profiles}
    gaps = {g.model: g for g in report.gaps}
    out.append(text_table(["model", *categories, "gap"],
                      [[m.model, *(rate(typed[(m.model, c)].hal_tp) if (m.model, c) in typed else "-"
                                   for c in categories),
                        gap(m.model)] for m in report.leaderboard], markdown))
    out.append("")
    out.append(h("Risk Direction Index (missing vs extra condition, % of contradicted)"))
    out.append(text_table(["model", "contradicted", "missing %", "extra %", "scope %", "other %", "RDI",
                           "95% CI"],
                      [[shown_name(r.model, natures), str(r.contradicted), rate(r.p_missing), rate(r.p_extra),
                        rate(r.p_scope), rate(r.p_other),
                        _signed(r.rdi), _ci(r.rdi_ci_low, r.rdi_ci_high, r.contradicted) + few(r.model)]
                       for r in report.rdi if r.category is None], markdown))
    if markdown and any(few(r.model) for r in report.leaderboard):
        out.extend(["", FEW_RDI])
    out.append("")
    out.append(h("Composite rank (weighted mean rank; lower is better)"))
    schemes = list(dict.fromkeys(c.scheme for c in report.composite))
    score = {(c.scheme, c.model): c for c in report.composite}
    ranked = {c.model for c in report.coverage if c.ranked}
    out.append(text_table(["model", *map(scheme_label, schemes)],
                      [[m.model + ("" if m.model in ranked else " (not ranked)"),
                        *(f"{score[(s, m.model)].score:.2f} (#{score[(s, m.model)].rank})"
                          if score.get((s, m.model)) and score[(s, m.model)].score is not None else "-"
                          for s in schemes)] for m in report.leaderboard], markdown))
    if not ranked:
        out.append("no system covers every matched cell: nothing is ranked (see the comparable_scope check)")
    out.append("")
    out.append(h("Per run"))
    out.append(text_table(["model", "run", "n", "FAR", "FRR", "Acc", "HalTP", "JEq", "RDI", "missing"],
                      [[r.model, str(r.run), str(r.n), rate(r.far), rate(r.frr), rate(r.acc), rate(r.hal_tp),
                        rate(r.jeq), _signed(r.rdi), str(r.missing_rows)] for r in report.per_run], markdown))
    out.append("")
    out.append(h("Usage and cost (USD at registered prices)"))
    out.append(text_table(["model", "run", "extraction calls", "judge calls", "input tok", "cached tok", "output tok",
                       "cost"],
                      [[u.model, str(u.run), str(u.extraction_calls), str(u.judge_calls), f"{u.input_tokens:,}",
                        f"{u.cached_tokens:,}", f"{u.output_tokens:,}",
                        "unknown" if u.cost_usd is None else f"${u.cost_usd:.2f}"]
                       for u in report.usage], markdown))
    out.append("")
    out.extend(cost_lines(report.cost, markdown))  # per stage, per correct answer, batch, over time
    if report.debate_effects:
        out.append(h("Debate effects (base > debate, same instances)"))
        out.append(debate_effects_markdown(report.debate_effects) if markdown
                   else debate_effects_table(report.debate_effects, markdown))
        out.append("")
    out.append(h("Checks"))
    out.extend(f"{'- ' if markdown else ''}[{'PASS' if c.passed else 'FAIL'}] {t(c.name)}: {t(c.summary)}"
               for c in checks)
    page = "\n".join(out) + "\n"
    return with_glossary(humane_markdown(page, outside_names(report)), "## Scope") if markdown else page


def outside_names(report: Report) -> list[str]:
    """The names from outside the platform a page prints as they are (systems, judge, corpus)."""
    sc = report.scope
    return [*sc.models, *(r.model for r in report.leaderboard), *(x for x in (sc.judge, sc.corpus_name) if x)]


def contracts_line(report: Report) -> str:
    """How many of the contracts the scope asks for some system covers: "N of M subset contracts"."""
    sc = report.scope
    asked = report.coverage[0].contracts_asked if report.coverage else sc.contracts
    what = f"subset {sc.subset} contracts" if sc.subset else "corpus contracts"
    return f"{sc.contracts} of {asked} {what} covered"


def matched_line(report: Report) -> str:
    """The matched cells and how many systems the cross-model figures rank on them."""
    first = report.coverage[0] if report.coverage else None
    if first is None or not first.matched_cells:
        return "none: no (contract, run) cell is covered by every system, so nothing is ranked"
    ranked = sum(c.ranked for c in report.coverage)
    return (f"{first.matched_contracts} contracts x runs {', '.join(map(str, first.matched_runs))}; cross-model "
            f"figures rank the {ranked} of {len(report.coverage)} systems that cover them")


def _runs_asked(report: Report) -> str:
    asked = report.coverage[0].runs_asked if report.coverage else []
    return "" if not asked or asked == report.scope.runs else f" (asked: {', '.join(map(str, asked))})"


def report_json(report: Report, checks: Sequence[CheckOutcome] | None = None) -> dict[str, Any]:
    """The report as JSON data: every leaderboard row carries its judge's `judge_validated`, and `checks` (name,
    passed, summary: as the suite reports' JSON and the text formats) follows the sections when computed."""
    out = {"verdict": clause_verdict(report).model_dump(mode="json"),  # first
           "suite": "clause", **report.model_dump(mode="json")}  # named as every suite's JSON report names its own
    status = judge_validated(report)
    for row in out["leaderboard"]:
        row["judge_validated"] = status
    if checks is not None:
        out["checks"] = [{"name": c.name, "passed": c.passed, "summary": c.summary} for c in checks]
    return out


def render_json(report: Report, checks: Sequence[CheckOutcome] | None = None) -> str:
    return json.dumps(report_json(report, checks), indent=2)


def render_csv(report: Report) -> str:
    """One CSV table: the verdict's rows, then every metric row, with a `table` column saying which section each
    belongs to."""
    columns = ["table", "model", "run", "category", *METRIC_COLUMNS, "rdi_ci_low", "rdi_ci_high", "missing_rows",
               "judge_validated", *COST_CSV_COLUMNS, *VERDICT_CSV_COLUMNS]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    # as in the JSON: true, false, or empty when the judge was never validated; one judge for every row
    status = {True: "true", False: "false", None: ""}[judge_validated(report)]
    writer.writerows(verdict_csv_rows(clause_verdict(report)))  # the verdict first, as in every format
    for table, rows in (("leaderboard", report.leaderboard), ("per_run", report.per_run),
                        ("typed_profiles", report.typed_profiles)):
        for row in rows:
            writer.writerow({"table": table, **row.model_dump(), "judge_validated": status})
    writer.writerows(cost_csv_rows(report.cost))  # the cost section's rows, `table` naming each part
    return buffer.getvalue()


def debate_effects_table(rows: Sequence[DebateEffectRow], markdown: bool = False) -> str:
    """Base versus debate on the same instances, one line per (backbone, run, subset, configuration); FN and
    FRR are there because a debate that removes fabrications can also remove true clauses."""
    headers = ["backbone", "run", "subset", "config", "decisions", "FP base>debate", "FN base>debate",
               "contradicted", "FAR %", "FRR %", "HalGen %", "RDI", "rounds", "round 1 %", "consensus %",
               "flipped %", "calls/dec", "tok/dec"]
    body = [[r.backbone, str(r.run), r.subset or "-", r.config, str(r.decisions), f"{r.fp_base} > {r.fp_debate}",
             f"{r.fn_base} > {r.fn_debate}", f"{r.contradicted_base} > {r.contradicted_debate}",
             f"{_pct(r.far_base)} > {_pct(r.far_debate)}", f"{_pct(r.frr_base)} > {_pct(r.frr_debate)}",
             f"{_pct(r.hal_gen_base)} > {_pct(r.hal_gen_debate)}", f"{_signed(r.rdi_base)} > {_signed(r.rdi_debate)}",
             "-" if r.mean_rounds is None else f"{r.mean_rounds:.2f}", _pct(r.share_round1), _pct(r.consensus_rate),
             _pct(r.flip_rate), "-" if r.calls_per_decision is None else f"{r.calls_per_decision:.2f}",
             "-" if r.tokens_per_decision is None else f"{r.tokens_per_decision:,.0f}"] for r in rows]
    return text_table(headers, body, markdown)


def render_debate_effects(rows: Sequence[DebateEffectRow]) -> str:
    title = "Debate effects (base > debate, same instances)"
    return "\n".join([title, "=" * len(title), debate_effects_table(rows) if rows else "(no debate in scope)"])


# The debate's effect as a reader reads it: one column per debated system, one line per figure (base -> debate).
DEBATE_LINES: tuple[tuple[str, str, str], ...] = (
    ("decisions", "decisions", "count"), ("fp", "false positives (FP)", "pair"), ("fn", "false negatives (FN)", "pair"),
    ("contradicted", "contradicted", "pair"), ("far", "FAR", "rate"), ("frr", "FRR", "rate"),
    ("hal_gen", "HalGen", "rate"), ("rdi", "RDI", "signed"), ("mean_rounds", "mean rounds", "number"),
    ("share_round1", "settled in round 1", "share"), ("consensus_rate", "consensus", "share"),
    ("flip_rate", "flipped", "share"), ("calls_per_decision", "calls per decision", "number"),
    ("tokens_per_decision", "tokens per decision", "tokens"))


def debate_system(r: DebateEffectRow) -> str:
    return f"{r.backbone} run {r.run} ({r.config}{', ' + r.subset if r.subset else ''})"


def debate_line(r: DebateEffectRow, key: str, kind: str) -> tuple[str, Any]:
    """One figure of one debated system as shown (base → debate for a pair) and its exact (debate) value."""
    from lhl_platform.report.labels import pct, signed

    if kind in ("pair", "rate", "signed"):
        base, debate = (getattr(r, f"{key}_base"), getattr(r, f"{key}_debate"))
        formats: dict[str, Callable[[Any], str]] = {"pair": str, "rate": pct, "signed": signed}
        fmt = formats[kind]
        return f"{fmt(base)} → {fmt(debate)}", debate
    value = getattr(r, key)
    if value is None:
        return "–", None
    shown: dict[str, Callable[[Any], str]] = {"count": str, "share": pct, "number": lambda v: f"{v:.2f}",
                                              "tokens": lambda v: f"{v:,.0f}"}
    return shown[kind](value), value


def _movement(base: int, debate: int) -> str:
    if base == debate == 0:
        return "stay at 0"
    change = (debate - base) / max(base, 1)
    word = "fall" if change <= -0.25 else "rise" if change >= 0.25 else "barely move"
    return f"{word} ({base} → {debate})"


def debate_caption(rows: Sequence[DebateEffectRow]) -> str:
    """What the debate changed, in words generated from the counts (never a fixed sentence)."""
    if not rows:
        return ""
    total = {k: (sum(getattr(r, f"{k}_base") for r in rows), sum(getattr(r, f"{k}_debate") for r in rows))
             for k in ("fp", "fn", "contradicted")}
    pooled = f" (summed over {len(rows)} debated runs)" if len(rows) > 1 else ""
    text = (f"Baseline against the typed debate on the same instances, scored by the same judge{pooled}: false "
            f"positives {_movement(*total['fp'])}, false negatives {_movement(*total['fn'])}, contradicted clauses "
            f"{_movement(*total['contradicted'])}.")
    from lhl_platform.report.labels import pct

    worse = [f"{debate_system(r)} {pct(r.frr_base)} → {pct(r.frr_debate)}" for r in rows
             if r.frr_base is not None and r.frr_debate is not None and r.frr_debate > r.frr_base * 1.25
             and r.fn_debate > r.fn_base]
    if worse:
        text += " The debate also drops true clauses: FRR rises for " + "; ".join(worse) + "."
    return text


def debate_effects_markdown(rows: Sequence[DebateEffectRow]) -> str:
    """The debate's effect for Markdown: transposed (a line per figure), so it stays narrow whatever the runs."""
    headers = ["", *(debate_system(r) for r in rows)]
    body = [[title, *(debate_line(r, key, kind)[0] for r in rows)] for key, title, kind in DEBATE_LINES]
    return text_table(headers, body, True) + "\n\n" + debate_caption(rows)
