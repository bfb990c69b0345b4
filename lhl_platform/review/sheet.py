"""Writing a review sheet: `review.html` (the suite's guide to the decisions, then each reviewable thing in its
context, its own change highlighted and other injected edits marked apart, its category and gold) and
`decisions.csv` (one row per thing with its term, location and context to read, `decision`, `corrected_location`
and `note` left for the reviewer, and the digest of the sheet it belongs to)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from html import escape
from pathlib import Path

from lhl_platform.files import write_atomic
from lhl_platform.review.events import DECISIONS
from lhl_platform.review.guide import INTRO, decision_guide
from lhl_platform.review.rows import CSV_COLUMNS, ReviewRow, Span, sheet_digest

_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}
.row{border:1px solid #ccc;border-radius:4px;margin:1em 0;padding:.6em 1em}
.meta{font-size:.85em;color:#444}.ctx{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:.85em;
background:#fafafa;padding:.5em}del{background:#fdd;text-decoration:line-through}ins{background:#cfc;
text-decoration:none;font-weight:bold}mark.other{background:#e6e0ff;border-bottom:2px dotted #64c}
code{background:#eee;padding:0 .2em}table.guide td{padding:.1em .6em;vertical-align:top}"""
_OTHER = '<mark class="other" title="another injected edit">'


def decisions_csv(rows: Sequence[ReviewRow]) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
    writer.writeheader()
    digest = sheet_digest(rows)
    for row in rows:
        writer.writerow(row.csv_row(digest))
    return out.getvalue().encode("utf-8")


def _marked(text: str, marks: Sequence[Span]) -> str:
    out, at = [], 0
    for s, e in sorted(marks):
        out += [escape(text[at:s]), f"{_OTHER}{escape(text[s:e]) or '[deleted]'}</mark>"]
        at = e
    return "".join(out) + escape(text[at:])


def _row_html(row: ReviewRow) -> str:
    change = (f"{_marked(row.before, row.before_marks)}"
              f"{f'<del>{escape(row.removed)}</del>' if row.removed else ''}"
              f"{f'<ins>{escape(row.inserted)}</ins>' if row.inserted else ''}{_marked(row.after, row.after_marks)}")
    found = f" · found by {escape(', '.join(row.found_by))}" if row.found_by else ""
    derived = " (derived from the text, not injected)" if row.kind == "term" else ""
    allowed = " or ".join(f"<code>{d}</code>" for d in DECISIONS[row.kind])
    shown = f'<div class="meta">{escape(row.shown_at)}</div>' if row.shown_at else ""
    return (f'<div class="row" id="r{row.ref}" data-ref="{row.ref}" data-kind="{row.kind}">'
            f'<div class="meta"><b>{escape(row.kind)}</b>{derived} · {escape(row.item_id)} · {escape(row.category)}'
            f"{found} · ref <code>{row.ref}</code> · decide {allowed}</div>"
            f'<div class="gold">gold: {escape(row.gold)}</div>{shown}<div class="ctx">{change}</div></div>')


def _guide_html(suite: str) -> str:
    lines = "".join(f"<tr><td><code>{kind}</code></td><td><code>{d}</code></td><td>{escape(meaning)}</td></tr>"
                    for kind, d, meaning in decision_guide(suite))
    return (f'<p>{escape(INTRO[suite])}</p><table class="guide"><tr><th>row</th><th>decision</th>'
            f"<th>what it means and does to the next gold version</th></tr>{lines}</table>")


def review_html(suite: str, rows: Sequence[ReviewRow], title: str) -> str:
    counts = ", ".join(f"{sum(r.kind == k for r in rows)} {k}s" for k in DECISIONS if any(r.kind == k for r in rows))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{_CSS}</style></head><body><h1>{escape(title)}</h1>"
            f"{_guide_html(suite)}<p>{escape(counts or 'nothing to review')}; sheet "
            f"<code>{sheet_digest(rows)}</code></p>" + "".join(_row_html(r) for r in rows) + "</body></html>\n")


def write_sheet(out: Path, suite: str, rows: Sequence[ReviewRow], title: str) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    html, table = out / "review.html", out / "decisions.csv"
    write_atomic(html, review_html(suite, rows, title).encode("utf-8"))
    write_atomic(table, decisions_csv(rows))
    return html, table
