"""A short licence agreement written for the ContractScrub tests (self-built, not from any corpus), and helpers to
plant one edit in it the way the injector records edits."""

from __future__ import annotations

import hashlib
from pathlib import Path

from lhl_platform.scrub.document import parse_contract
from lhl_platform.scrub.items import Edit, GoldFinding, ScrubItem, Source

# Written for these tests: a licence agreement with definitions, numbered sections, cross-references, two
# parties, a pre-existing undefined capitalised term ("Marketing Plan") and a restated provision (6.2 and 3.1).
CONTRACT = (Path(__file__).parent / "scrub_data" / "northwind_license.txt").read_text(encoding="utf-8")

SOURCE = Source(corpus="self-built", contract_id="northwind", sha256=hashlib.sha256(CONTRACT.encode()).hexdigest())


def planted(category: str, at: str, old: str, new: str, fields: dict[str, str], *, occurrence: int = 0,
            distance: int | None = None, source: str = CONTRACT) -> ScrubItem:
    """An item with one edit, recorded as the injector records it: in the `occurrence`-th appearance of the
    context `at`, the text `old` replaced by `new` (with `old` empty, `new` inserted at the end of `at`); the
    defined-terms gold derived from the result."""
    start = -1
    for _ in range(occurrence + 1):
        start = source.index(at, start + 1)
    start = start + at.index(old) if old else start + len(at)
    end = start + len(old)
    text = source[:start] + new + source[end:]
    doc = parse_contract(text)
    gold = [GoldFinding(category="defined_terms", term=d.term, location=d.location) for d in doc.definitions]
    gold.append(GoldFinding(category=category, edit=Edit(start=start, end=start + len(new), original=old),
                            distance=distance, **fields))
    return ScrubItem(contract_id="northwind", text=text, gold=tuple(gold), source=SOURCE)
