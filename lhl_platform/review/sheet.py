"""Writing a review sheet: `review.html` (each reviewable thing in its context, the change highlighted, its
category and gold) and `decisions.csv` (one row per thing, `decision` and `note` left for the reviewer)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from html import escape
from pathlib import Path

from lhl_platform.files import write_atomic
from lhl_platform.review.events import DECISIONS
from lhl_platform.review.rows import CSV_COLUMNS, ReviewRow

_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}
.row{border:1px solid #ccc;border-radius:4px;margin:1em 0;padding:.6em 1em}
.meta{font-size:.85em;color:#444}.ctx{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:.85em;
background:#fafafa;padding:.5em}del{background:#fdd;text-decoration:line-through}ins{background:#cfc;
text-decoration:none;font-weight:bold}code{background:#eee;padding:0 .2em}"""


def decisions_csv(rows: Sequence[ReviewRow]) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row.csv_row())
    return out.getvalue().encode("utf-8")


def _row_html(row: ReviewRow) -> str:
    change = (f"{escape(row.before)}{f'<del>{escape(row.removed)}</del>' if row.removed else ''}"
              f"{f'<ins>{escape(row.inserted)}</ins>' if row.inserted else ''}{escape(row.after)}")
    found = f" · found by {escape(', '.join(row.found_by))}" if row.found_by else ""
    allowed = " or ".join(f"<code>{d}</code>" for d in DECISIONS[row.kind])
    return (f'<div class="row" id="r{row.ref}" data-ref="{row.ref}" data-kind="{row.kind}">'
            f'<div class="meta"><b>{escape(row.kind)}</b> · {escape(row.item_id)} · {escape(row.category)}'
            f"{found} · ref <code>{row.ref}</code> · decide {allowed}</div>"
            f'<div class="gold">gold: {escape(row.gold)}</div><div class="ctx">{change}</div></div>')


def review_html(rows: Sequence[ReviewRow], title: str, note: str) -> str:
    counts = ", ".join(f"{sum(r.kind == k for r in rows)} {k}s" for k in DECISIONS if any(r.kind == k for r in rows))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{_CSS}</style></head><body><h1>{escape(title)}</h1>"
            f"<p>{escape(note)}</p><p>{escape(counts or 'nothing to review')}</p>"
            + "".join(_row_html(r) for r in rows) + "</body></html>\n")


def write_sheet(out: Path, rows: Sequence[ReviewRow], title: str, note: str) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    html, table = out / "review.html", out / "decisions.csv"
    write_atomic(html, review_html(rows, title, note).encode("utf-8"))
    write_atomic(table, decisions_csv(rows))
    return html, table
