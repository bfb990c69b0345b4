"""A section's rows laid out for a reader (labels.py): labelled columns, rates in percent, an interval as one column,
a wide table split (its detail folded in HTML), a one-row table transposed, a leaderboard's ranked systems first
and its incomplete ones after them, marked. Rendered as text/Markdown tables or HTML tables with exact values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from lhl_platform.domain.text import markdown_text, printable
from lhl_platform.report.labels import (
    FEW_MARK,
    NONE_MEANS_NONE,
    Column,
    columns,
    few_cases,
    few_cases_note,
    identity_columns,
    split_columns,
)
from lhl_platform.report.system_nature import SystemNature, by_model, shown_name
from lhl_platform.report.system_nature import tag as nature_tag

NAMES = ("model", "backbone")  # columns holding a system's name
TRANSPOSE_OVER = 6  # a one-row table with more columns than this is shown as (label, value) lines
INCOMPLETE = " (incomplete)"


@dataclass
class View:
    name: str
    rows: list[dict[str, Any]]
    main: list[Column]
    detail: list[Column] = field(default_factory=list)
    transposed: bool = False
    note: str | None = None
    natures: Mapping[str, SystemNature] = field(default_factory=dict)

    def text(self, col: Column, row: dict[str, Any], none: str = "–", tagged: bool = True) -> str:
        shown = col.text(row, none)
        if col.key in NONE_MEANS_NONE.get(self.name, ()) and not row.get(col.key) and row.get("validated", True):
            shown = "none"  # measured, and nothing found
        if tagged and col.key in NAMES and not col.interval and isinstance(row.get(col.key), str):
            shown = shown_name(shown, self.natures)  # a stand-in never reads as a real model
        if col.key == "model" and not col.interval and row.get("complete") is False:
            shown += INCOMPLETE  # no overall figure and no rank: never read as a system that ranks
        return shown


def ordered(name: str, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A leaderboard's ranked rows by rank, then the unranked ones in their order."""
    if name != "leaderboard" or not rows or "rank" not in rows[0]:
        return list(rows)
    return sorted(rows, key=lambda r: (r["rank"] is None, r["rank"] or 0))


def view(name: str, rows: Sequence[dict[str, Any]], systems: Sequence[SystemNature] = ()) -> View:
    """`systems`: what each system is, named beside it (`report/system_nature.py`)."""
    rows = ordered(name, rows)
    fields = list(rows[0])
    cols = columns(fields, name)
    natures = by_model(systems)
    if len(rows) == 1 and len(cols) > TRANSPOSE_OVER:
        return View(name, rows, cols, transposed=True, note=few_cases_note(rows, cols), natures=natures)
    main, detail = split_columns(cols, name, identity_columns(fields))
    return View(name, rows, main, detail, note=few_cases_note(rows, cols), natures=natures)


# Text and Markdown ------------------------------------------------------------------------------------------

def text_table(headers: list[str], rows: list[list[str]], markdown: bool) -> str:
    """One table as aligned text (the first column left, the rest right) or Markdown, every cell inert."""
    rows = [[inert(cell, markdown) for cell in row] for row in rows]  # names and ids come from outside
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return "\n".join([fmt.format(*headers), fmt.format(*("-" * w for w in widths))] + [fmt.format(*r) for r in rows])


def inert(text: str, markdown: bool) -> str:
    """Text from outside the report (a corpus named after its folder, a contract after its file) as it
    may be printed: literal Markdown, or without control characters for a terminal."""
    return markdown_text(text) if markdown else printable(text)


def text_tables(v: View, markdown: bool) -> list[str]:
    """The view as text or Markdown tables (a blank line between them: a line under a Markdown table is a row)."""
    none = "–" if markdown else "-"
    if v.transposed:
        (row,) = v.rows
        out = [text_table(["", v.text(v.main[0], row, none)], [[c.title, v.text(c, row, none)] for c in v.main[1:]],
                      markdown)]
    else:
        out = [text_table([c.title for c in v.main], [[v.text(c, r, none) for c in v.main] for r in v.rows], markdown)]
        if v.detail:
            out += ["", "More columns of the same rows:", "",
                    text_table([c.title for c in v.detail], [[v.text(c, r, none) for c in v.detail] for r in v.rows],
                           markdown)]
    if v.note:
        out += ["", v.note] if markdown else [v.note]
    return out


# HTML -----------------------------------------------------------------------------------------------------

def _cell(v: View, col: Column, row: dict[str, Any]) -> Any:
    from lhl_platform.report.html import Cell

    if col.key in NAMES and not col.interval and isinstance(row.get(col.key), str):  # what it is, under it
        return Cell(v.text(col, row, tagged=False), row[col.key], col.key, "text", nature_tag(row[col.key], v.natures))
    text = v.text(col, row)
    if col.interval:
        weak = text.endswith(FEW_MARK) and few_cases(row) is not None
        return Cell(text, row.get(col.low or ""), col.low, "ci weak" if weak else "ci")
    value = row.get(col.key)
    css = "text" if isinstance(value, str | list | tuple) else ""  # words left-aligned, numbers right
    return Cell(text, value, col.key, css)


def html_tables(v: View) -> str:
    from lhl_platform.report.html import Cell, table

    if v.transposed:
        (row,) = v.rows
        body: list[tuple[dict[str, str], Sequence[Any]]] = [
            ({"field": c.key}, [Cell(c.title, css="text"), _cell(v, c, row)]) for c in v.main[1:]]
        out = table(v.name, ["", v.text(v.main[0], row)], body).replace("<table ", '<table class="facts" ', 1)
    else:
        rows: list[tuple[dict[str, str], Sequence[Any]]] = [({}, [_cell(v, c, r) for c in v.main]) for r in v.rows]
        out = table(v.name, [c.title for c in v.main], rows)
        if v.detail:
            names = ", ".join(c.title for c in v.detail[1:])
            detail: list[tuple[dict[str, str], Sequence[Any]]] = [({}, [_cell(v, c, r) for c in v.detail])
                                                                  for r in v.rows]
            out += (f"<details><summary>More columns: {escape(names)}</summary>"
                    + table(f"{v.name}_detail", [c.title for c in v.detail], detail) + "</details>")
    if v.note:
        out += f'<p class="weak" data-note="few-cases">{escape(v.note)}</p>'
    return out
