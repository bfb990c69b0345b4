"""Reading a filled-in decisions.csv: validated whole against the review sheet of the gold version it names,
before anything is recorded. The first problem is one error naming the line: a row of another suite, item set or
gold version, a ref the sheet does not hold or holds twice, a decision its kind does not take, a wrong_location
without its corrected location."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from lhl_platform.review.events import DECISIONS, RELOCATES
from lhl_platform.review.rows import READ_COLUMNS, ReviewRow


class DecisionsError(ValueError):
    """A decisions file that cannot be imported; nothing of it is recorded."""


@dataclass(frozen=True)
class SheetHeader:
    """What a decisions file is of: the suite, the item set and the gold version its sheet was exported from, and
    the digest of that sheet's rows (`lhl_platform.review.rows.sheet_digest`)."""

    suite: str
    item_set: str
    gold_version: int
    sheet_digest: str


@dataclass(frozen=True)
class Decided:
    line: int
    row: ReviewRow
    decision: str
    location: str  # the corrected location of a wrong_location
    note: str


def read_rows(data: bytes, name: str) -> tuple[SheetHeader, list[tuple[int, dict[str, str]]]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DecisionsError(f"{name}: not UTF-8 text") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in READ_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise DecisionsError(f"{name}: not a decisions sheet (no column {', '.join(missing)}); `lhl review export` "
                             "writes one")
    rows = [(n, {k: (v or "").strip() for k, v in r.items() if k is not None}) for n, r in enumerate(reader, 2)]
    if not rows:
        raise DecisionsError(f"{name}: no rows")
    first = rows[0][1]
    try:
        header = SheetHeader(first["suite"], first["item_set"], int(first["gold_version"]), first["sheet_digest"])
    except ValueError:
        raise DecisionsError(f"{name} line 2: gold_version {first['gold_version']!r} is not a number") from None
    for line, r in rows:
        for column, expected in (("suite", header.suite), ("item_set", header.item_set),
                                 ("gold_version", str(header.gold_version)), ("sheet_digest", header.sheet_digest)):
            if r[column] != expected:
                raise DecisionsError(f"{name} line {line}: {column} {r[column]!r}, but line 2 has {expected!r} (one "
                                     "file is one sheet of one gold version)")
    return header, rows


def validate(rows: list[tuple[int, dict[str, str]]], sheet: Sequence[ReviewRow], name: str) -> list[Decided]:
    """The rows with a decision, each checked against the sheet (an empty decision is a row not reviewed)."""
    by_ref = {r.ref: r for r in sheet}
    seen: dict[str, int] = {}
    out: list[Decided] = []
    for line, r in rows:
        ref = r["ref"]
        row = by_ref.get(ref)
        if row is None:
            raise DecisionsError(f"{name} line {line}: unknown ref {ref!r}: not a row of the review sheet of item set "
                                 f"{row_set(sheet)} at this gold version")
        if ref in seen:
            raise DecisionsError(f"{name} line {line}: ref {ref} again (first on line {seen[ref]})")
        seen[ref] = line
        if r["kind"] != row.kind or r["item_id"] != row.item_id:
            raise DecisionsError(f"{name} line {line}: ref {ref} is {row.kind} of {row.item_id}, not {r['kind']} of "
                                 f"{r['item_id']}")
        decision = r["decision"].lower()
        if not decision:
            continue
        if decision not in DECISIONS[row.kind]:
            raise DecisionsError(f"{name} line {line}: decision {r['decision']!r} does not fit a {row.kind} (one of "
                                 f"{', '.join(DECISIONS[row.kind])})")
        location = r["corrected_location"]
        if (decision == RELOCATES) != bool(location):
            raise DecisionsError(f"{name} line {line}: " + (
                f"{RELOCATES} needs the right location in corrected_location" if not location else
                f"corrected_location {location!r} goes with {RELOCATES} only, not {decision}"))
        out.append(Decided(line=line, row=row, decision=decision, location=location, note=r.get("note", "")))
    return out


def row_set(sheet: Sequence[ReviewRow]) -> str:
    return sheet[0].item_set if sheet else "(empty sheet)"
