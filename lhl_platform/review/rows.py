"""One row of a review sheet: a reviewable thing of one gold version, what the reviewer reads about it and the
columns of decisions.csv."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.review.events import Kind, Suite

# What the importer reads; the reviewer fills in `decision`, `corrected_location` (a wrong_location) and `note`.
READ_COLUMNS = ("ref", "suite", "item_set", "gold_version", "sheet_digest", "item_id", "kind", "category",
                "decision", "corrected_location", "note")
# `term`, `location` and `context` are for reading the sheet in a spreadsheet: the importer ignores them.
CSV_COLUMNS = ("ref", "suite", "item_set", "gold_version", "sheet_digest", "item_id", "kind", "category", "term",
               "location", "context", "decision", "corrected_location", "note")
CSV_CONTEXT = 100  # characters of context either side in the csv (the html shows more)

Span = tuple[int, int]


class ReviewRow(BaseModel):
    """A reviewable thing: an injected edit, a derived defined term, a model finding that matched no gold, a base
    query, an item variant, a missing element. `before` / `removed` / `inserted` / `after` show it in its context,
    `before_marks` / `after_marks` the other injected edits inside that context (spans of `before` / `after`);
    `shown_at` says where in the text the context is taken from; `gold` what the gold says of it; `found_by`
    (findings) the audited models that reported it."""

    model_config = ConfigDict(frozen=True)

    ref: str
    suite: Suite
    item_set: str
    gold_version: int = Field(ge=1)
    item_id: str
    kind: Kind
    category: str
    term: str = ""
    location: str = ""
    before: str = ""
    removed: str = ""
    inserted: str = ""
    after: str = ""
    before_marks: tuple[Span, ...] = ()
    after_marks: tuple[Span, ...] = ()
    shown_at: str = ""
    gold: str = ""
    found_by: tuple[str, ...] = ()
    trim: bool = True  # a contract's context is cut to CSV_CONTEXT in the csv; a legal query is shown whole

    def context(self) -> str:
        """The context as plain text: the row's own change as [-removed-]{+inserted+}, other edits as «...»."""
        width = CSV_CONTEXT if self.trim else None
        before, before_marks = _tail(self.before, self.before_marks, width)
        after, after_marks = _head(self.after, self.after_marks, width)
        own = (f"[-{self.removed}-]" if self.removed else "") + (f"{{+{self.inserted}+}}" if self.inserted else "")
        return _marked(before, before_marks) + own + _marked(after, after_marks)

    def csv_row(self, sheet_digest: str) -> dict[str, str]:
        return {"ref": self.ref, "suite": self.suite, "item_set": self.item_set,
                "gold_version": str(self.gold_version), "sheet_digest": sheet_digest, "item_id": self.item_id,
                "kind": self.kind, "category": self.category, "term": self.term, "location": self.location,
                "context": " ".join(self.context().split()), "decision": "", "corrected_location": "", "note": ""}


def sheet_digest(rows: Sequence[ReviewRow]) -> str:
    """What a sheet was exported from, in one value: its row count and a digest of its refs (a ref names its
    thing's content, so a finding row an audit added, or an edit a review removed, changes it)."""
    refs = "\n".join(sorted(r.ref for r in rows))
    return f"{len(rows)}-{hashlib.sha256(refs.encode()).hexdigest()[:16]}"


def marks_in(window: Span, spans: Sequence[Span]) -> tuple[Span, ...]:
    """The spans (text offsets) inside a window of the text, as offsets of the window; an empty span (a deletion)
    is kept as a point."""
    lo, hi = window
    return tuple((max(s, lo) - lo, min(e, hi) - lo) for s, e in spans
                 if (s < hi and e > lo) or (s == e and lo <= s <= hi))


def _marked(text: str, marks: Sequence[Span]) -> str:
    out, at = [], 0
    for s, e in sorted(marks):
        out += [text[at:s], f"«{text[s:e]}»"]
        at = e
    return "".join(out) + text[at:]


def _tail(text: str, marks: Sequence[Span], width: int | None) -> tuple[str, tuple[Span, ...]]:
    if width is None or len(text) <= width:
        return text, tuple(marks)
    cut = len(text) - width
    return "…" + text[cut:], tuple((max(s, cut) - cut + 1, e - cut + 1) for s, e in marks if e >= cut)


def _head(text: str, marks: Sequence[Span], width: int | None) -> tuple[str, tuple[Span, ...]]:
    if width is None or len(text) <= width:
        return text, tuple(marks)
    return text[:width] + "…", tuple((s, min(e, width)) for s, e in marks if s <= width)
