"""The HTML shell every suite's report is written in: one self-contained file for the people who act on an audit.

Everything is inline: the CSS, and the figures as SVG (`figures.py`); there is no script and nothing is fetched,
so the file opens offline and can be mailed or archived as it is. Every number in a table carries its exact value
in `data-value` (rates as fractions, as in the JSON report), so a test or a scraper can check the page against
`lhl report --format json` without parsing the rounded text. Here: the CSS, cells and tables, sections, notes,
figures and the checks section; a suite's sections are its own (the clause suite's:
`lhl_platform/clause/report/html.py`, every other suite's: `suite_report.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from lhl_platform.quality.checks import CheckOutcome
from lhl_platform.report.glossary import header_title
from lhl_platform.report.labels import FEW_CASES, pct, point_text
from lhl_platform.report.system_nature import SystemNature
from lhl_platform.report.system_nature import tag as nature_tag

CSS = """
:root { --ink: #1d2329; --muted: #5b6670; --line: #d8dde2; --accent: #1f4e79; --warn: #8a4b00; --bg: #ffffff; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, Helvetica, sans-serif; color: var(--ink);
       background: var(--bg); margin: 0 auto; max-width: 1100px; padding: 24px 28px 48px; line-height: 1.45;
       font-size: 14px; }
h1 { font-size: 24px; margin: 0 0 4px; color: var(--accent); }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 2px solid var(--accent); }
h3 { font-size: 15px; margin: 18px 0 6px; }
p.lede { color: var(--muted); margin-top: 0; }
nav ol { columns: 3; font-size: 13px; padding-left: 18px; }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 12.5px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: right; vertical-align: top; }
th { background: #f2f5f8; font-weight: 600; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
td:first-child { white-space: nowrap; }
tr.group td { background: #fafbfc; font-weight: 600; }
table.dense th, table.dense td { padding: 4px 5px; }
td.ci { color: var(--muted); white-space: nowrap; }
td.weak, p.weak { color: var(--warn); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 16px; margin: 8px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.note { border-left: 4px solid var(--accent); background: #f3f7fb; padding: 8px 12px; margin: 10px 0; }
.note.warn { border-color: var(--warn); background: #fdf6ec; }
.note.banner { border-width: 0 0 0 8px; font-size: 15px; margin: 12px 0 16px; }
figure { margin: 10px 0 16px; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 12.5px; }
details summary { cursor: pointer; color: var(--accent); margin: 6px 0; }
code { background: #f2f5f8; padding: 0 3px; border-radius: 2px; }
span.nature { color: var(--warn); font-size: 11px; }
.pass { color: #1a7f37; font-weight: 600; }
.fail { color: #b42318; font-weight: 600; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line);
         padding-top: 8px; }
@media print { nav, details summary { display: none; } details { display: block; } }
"""


def interval(low: float | None, high: float | None, fmt: Any = pct, n: int | None = None) -> str:
    """`[low, high]`; a point interval as `labels.point_text` says (`n`: the cases it rests on)."""
    if low is None or high is None:
        return "–"
    return point_text(fmt(low), n) if low == high else f"[{fmt(low)}, {fmt(high)}]"


def with_interval(shown: str, low: float | None, high: float | None, n: int | None = None) -> str:
    """A figure and its interval in one cell: `11.6% [9.4%, 13.9%]`; a point interval said once, in words."""
    if low is None or high is None:
        return shown
    if low == high:
        return f"{shown} (" + (f"too few for an interval, n={n}" if n is not None and n < FEW_CASES
                               else "the same in every resample") + ")"
    return f"{shown} {interval(low, high)}"


def _value(value: Any) -> str:
    return "" if value is None else escape(repr(value) if isinstance(value, float) else str(value), quote=True)


class Cell:
    """A table cell: the text shown, and optionally the exact value and metric it stands for."""

    def __init__(self, text: str, value: Any = None, metric: str | None = None, css: str = "",
                 sub: str | None = None) -> None:
        self.text, self.value, self.metric, self.css, self.sub = text, value, metric, css, sub

    def html(self, header: bool = False) -> str:
        tag = "th" if header else "td"
        attrs = f' class="{self.css}"' if self.css else ""
        if self.metric is not None:
            attrs += f' data-metric="{escape(self.metric)}" data-value="{_value(self.value)}"'
        sub = "" if self.sub is None else f'<br><span class="nature">{escape(self.sub)}</span>'
        return f"<{tag}{attrs}>{escape(self.text)}{sub}</{tag}>"


def name_cell(model: str, natures: Mapping[str, SystemNature], text: str | None = None) -> Cell:
    """A system's name as its row's first cell, with what it is under it where it is not a real model."""
    return Cell(text or model, model, "model", sub=nature_tag(model, natures))


def table(name: str, headers: Sequence[str], rows: Iterable[tuple[dict[str, str], Sequence[Cell | str]]]) -> str:
    head = "".join(f'<th title="{escape(tip, quote=True)}">{escape(h)}</th>' if (tip := header_title(h)) else
                   f"<th>{escape(h)}</th>" for h in headers)
    body = []
    for attrs, cells in rows:
        row_attrs = "".join(f' data-{k}="{escape(v, quote=True)}"' for k, v in attrs.items())
        body.append(f"<tr{row_attrs}>" + "".join((c if isinstance(c, Cell) else Cell(c)).html() for c in cells)
                    + "</tr>")
    return (f'<table data-table="{escape(name)}"><thead><tr>{head}</tr></thead><tbody>'
            + "".join(body) + "</tbody></table>")


def facts_html(items: Sequence[tuple[str, str]]) -> str:
    return '<dl class="facts">' + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items) + "</dl>"


def section_html(anchor: str, title: str, *parts: str) -> str:
    return f'<section id="{anchor}"><h2>{escape(title)}</h2>' + "".join(parts) + "</section>"


def note_html(text: str, warn: bool = False) -> str:
    return f'<div class="note{" warn" if warn else ""}">{text}</div>'


def figure_html(svg: str, caption: str, name: str) -> str:
    return f'<figure data-figure="{name}">{svg}<figcaption>{escape(caption)}</figcaption></figure>'


def checks_html(checks: Sequence[CheckOutcome]) -> str:
    if not checks:
        return ""
    rows = [({"check": c.name}, [Cell(c.name), Cell("PASS" if c.passed else "FAIL", c.passed, "passed",
                                                    "pass" if c.passed else "fail"),
                                 Cell(c.summary, css="text")]) for c in checks]
    return section_html("checks", "Checks", table("checks", ["check", "result", "summary"], rows))
