"""The cost section of every suite's report, read from the suite's cost marts and rendered in every format.

Four marts per suite (the clause suite's `cost_by_stage`, `cost_per_correct`, `batch_savings`, `cost_over_time`;
another suite's the same names after its prefix, found in its SQL package): cost per model, stage (solve, judge,
debate) and role, per correct answer (a true positive, a found defect, an identified missing element), what batch
calls saved against the interactive rates, and what each run of a monitored model cost. A cost holding a call of
unknown cost is unknown (null in JSON, "unknown" in text and HTML), never $0.00, and the models whose calls have no
price are named.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from lhl_platform.report.marts import BatchSavingsRow, CostOverTimeRow, CostPerCorrectRow, CostStageRow, Row, rows_of

if TYPE_CHECKING:
    import duckdb

# Each part of the section, the mart it reads (after the suite's prefix) and its row class.
MARTS: tuple[tuple[str, str, type[Row]], ...] = (
    ("by_stage", "cost_by_stage", CostStageRow),
    ("per_correct", "cost_per_correct", CostPerCorrectRow),
    ("batch_savings", "batch_savings", BatchSavingsRow),
    ("over_time", "cost_over_time", CostOverTimeRow),
)


class CostSection(BaseModel):
    """A suite's cost: `unit` is what a correct answer is; `unknown` names the billed models with a call of unknown
    cost (every total holding one is null)."""

    unit: str
    by_stage: list[CostStageRow]
    per_correct: list[CostPerCorrectRow]
    batch_savings: list[BatchSavingsRow]
    over_time: list[CostOverTimeRow]
    unknown: list[str]


def read_cost(con: duckdb.DuckDBPyConnection, prefix: str = "") -> CostSection | None:
    """The cost section from the marts named `<prefix><mart>`; None when the suite has no cost marts."""
    tables = {t for (t,) in con.execute("select table_name from duckdb_tables() union "
                                        "select view_name from duckdb_views()").fetchall()}
    if any(prefix + mart not in tables for _, mart, _ in MARTS):
        return None
    parts: dict[str, Any] = {name: rows_of(con, prefix + mart, cls) for name, mart, cls in MARTS}
    per_correct: list[CostPerCorrectRow] = parts["per_correct"]
    by_stage: list[CostStageRow] = parts["by_stage"]
    unit = per_correct[0].unit if per_correct else "correct answer"
    unknown = sorted({r.billed_model for r in by_stage if r.unknown_cost_calls})
    return CostSection(unit=unit, unknown=unknown, **parts)


def suite_cost(con: duckdb.DuckDBPyConnection, suite: str) -> CostSection | None:
    """A suite's cost section, from the cost marts of its SQL package (`<prefix>cost_by_stage`, ...)."""
    from lhl_platform.warehouse.models import sql_models

    names = [m.name for m in sql_models(("marts",), packages={suite})]
    found = [n for n in names if n.endswith("cost_by_stage")]
    return read_cost(con, found[0][:-len("cost_by_stage")]) if found else None


# --- shown values ---------------------------------------------------------------------------------------------


def usd(value: float | None) -> str:
    """A cost: "unknown" when it is (a call had no price), never $0.00 in its place."""
    if value is None:
        return "unknown"
    return f"${value:.4f}" if 0 < abs(value) < 0.01 else f"${value:,.2f}"


def _maybe_usd(value: float | None, calls: int | None) -> str:
    return "-" if calls is None else usd(value)


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


# One table of the section: its name, title, headers and rows of (shown text, exact value, column).
Table = tuple[str, str, list[str], list[list[tuple[str, Any, str]]]]


def cost_tables(section: CostSection) -> list[Table]:
    """The section's tables, in order; batch savings and cost over time only where they have rows."""
    out: list[Table] = [(
        "cost_by_stage", "Cost by model and stage (USD)",
        ["model", "stage", "role", "billed model", "runs", "calls", "batch calls", "input tok", "output tok", "cost"],
        [[(r.model, r.model, "model"), (r.stage, r.stage, "stage"), (r.role or "-", r.role, "role"),
          (r.billed_model, r.billed_model, "billed_model"), (str(r.runs), r.runs, "runs"),
          (_count(r.calls), r.calls, "calls"), (_count(r.batch_calls), r.batch_calls, "batch_calls"),
          (_count(r.input_tokens), r.input_tokens, "input_tokens"),
          (_count(r.output_tokens), r.output_tokens, "output_tokens"), (usd(r.cost_usd), r.cost_usd, "cost_usd")]
         for r in section.by_stage])]
    out.append((
        "cost_per_correct", f"Cost per {section.unit} (USD, every stage)",
        ["model", "calls", section.unit + "s", "cost", f"per {section.unit}"],
        [[(r.model, r.model, "model"), (_count(r.calls), r.calls, "calls"), (_count(r.correct), r.correct, "correct"),
          (_maybe_usd(r.cost_usd, r.calls), r.cost_usd, "cost_usd"),
          ("-" if r.calls is None or (r.cost_usd is not None and not r.correct) else usd(r.cost_per_correct_usd),
           r.cost_per_correct_usd, "cost_per_correct_usd")]
         for r in section.per_correct]))
    if section.batch_savings:
        out.append((
            "batch_savings", "Batch savings (USD, against the registered interactive rates)",
            ["model", "billed model", "batch calls", "batch cost", "interactive cost", "saved", "saved %"],
            [[(r.model, r.model, "model"), (r.billed_model, r.billed_model, "billed_model"),
              (_count(r.batch_calls), r.batch_calls, "batch_calls"),
              (usd(r.batch_cost_usd), r.batch_cost_usd, "batch_cost_usd"),
              (usd(r.interactive_cost_usd), r.interactive_cost_usd, "interactive_cost_usd"),
              (usd(r.saved_usd), r.saved_usd, "saved_usd"), (_share(r.saved_share), r.saved_share, "saved_share")]
             for r in section.batch_savings]))
    if section.over_time:
        out.append((
            "cost_over_time", "Cost over time (monitored models, USD per run)",
            ["model", "run", "first day", "last day", "calls", "cost"],
            [[(r.model, r.model, "model"), (str(r.run), r.run, "run"), (r.first_day, r.first_day, "first_day"),
              (r.last_day, r.last_day, "last_day"), (_count(r.calls), r.calls, "calls"),
              (usd(r.cost_usd), r.cost_usd, "cost_usd")] for r in section.over_time]))
    return out


def cost_notes(section: CostSection) -> list[str]:
    """What a reader needs beside the tables: the models of unknown cost, and that no batch call was made."""
    notes = []
    if section.unknown:
        notes.append(f"unknown cost: {', '.join(section.unknown)} (priced neither by the price table nor at "
                     "registration; every total holding their calls is unknown, never $0.00)")
    if not section.batch_savings:
        notes.append("batch savings: no call in scope was served by a batch API")
    return notes


# --- renderers ----------------------------------------------------------------------------------------------


def cost_lines(section: CostSection | None, markdown: bool = False) -> list[str]:
    """The section as text or Markdown tables (each followed by a blank line); nothing without a section."""
    if section is None:
        return []
    from lhl_platform.domain.text import markdown_text, printable
    from lhl_platform.report.layout import text_table

    out: list[str] = []
    for _, title, headers, rows in cost_tables(section):
        out += [f"## {title}" if markdown else f"{title}\n{'=' * len(title)}",
                text_table(headers, [[text for text, _, _ in row] for row in rows], markdown), ""]
    for note in cost_notes(section):
        out += ["- " + markdown_text(note) if markdown else printable(note)]
    return out + ([""] if cost_notes(section) else [])


def cost_json(section: CostSection | None) -> dict[str, Any] | None:
    return None if section is None else section.model_dump(mode="json")


def cost_html(section: CostSection | None) -> str:
    """The section as an HTML section (exact values in `data-value`), with the cost-over-time figure of the
    monitored models where there is one; empty without a section."""
    if section is None:
        return ""
    from lhl_platform.report.cost_figure import cost_over_time_figure
    from lhl_platform.report.html import Cell, figure_html, note_html, section_html, table

    parts: list[str] = []
    for name, title, headers, rows in cost_tables(section):
        if name == "cost_over_time":
            parts.append(figure_html(cost_over_time_figure(section.over_time), title, "cost_over_time"))
        parts.append(f"<h3>{escape(title)}</h3>")
        parts.append(table(name, headers, [({"model": row[0][1]}, [Cell(t, v, m) for t, v, m in row])
                                           for row in rows]))
    parts += [note_html(escape(n), warn=n.startswith("unknown")) for n in cost_notes(section)]
    return section_html("cost", "Cost", *parts)


# The CSV's cost rows: `table` names the part (`cost_by_stage`, `cost_per_correct`, `cost_batch_savings`,
# `cost_over_time`); beside the report's `model`, `run` and `runs`, these columns (every part's fields).
CSV_COLUMNS = ("stage", "role", "billed_model", "calls", "batch_calls", "unknown_cost_calls", "input_tokens",
               "output_tokens", "cached_tokens", "cost_usd", "correct", "unit", "cost_per_correct_usd",
               "batch_cost_usd", "interactive_cost_usd", "saved_usd", "saved_share", "first_day", "last_day")


def cost_csv_rows(section: CostSection | None) -> list[dict[str, Any]]:
    """One dict per cost row, with `table` naming its part; a null value left empty."""
    if section is None:
        return []
    out: list[dict[str, Any]] = []
    for name, _, _ in MARTS:
        rows: Sequence[BaseModel] = getattr(section, name)
        out += [{"table": f"cost_{name}", **{k: v for k, v in r.model_dump().items() if v is not None}} for r in rows]
    return out

