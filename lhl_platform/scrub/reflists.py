"""Lists of cross-references ("Sections 3.6, 4, 6 and 8", "Articles IV through VI"), so that a wrong number put
into one reads as a slip rather than a giveaway.

A survival or enumeration list is written in ascending order; a reviewer who sees `7, 11, 9, 4 and 12` knows
where the planted numbers are without reading the provisions. So at most one reference of a list is renumbered
(the injector gives its candidates one subject per list), and only to a number that lies strictly between its
neighbours; a list that is not ascending in the source is not touched at all.
"""

from __future__ import annotations

import re

from lhl_platform.scrub.document import ParsedContract, Reference, Section, roman_value

# What joins two references of one list: a comma, "and", "or", "through", "to".
_JOINER = re.compile(r"\s*(?:,\s*(?:and|or)?|and|or|through|to|and/or)\s*")


def _value(label: str) -> tuple[int, ...] | None:
    """A label's place in the numbering (`8.2(a)` -> (8, 2)), or None when it is not a number."""
    roman = roman_value(label)
    if roman is not None:
        return (roman,)
    m = re.match(r"\d{1,2}(?:\.\d{1,3}){0,3}", label)
    return tuple(int(p) for p in m.group().split(".")) if m else None


def reference_lists(doc: ParsedContract) -> dict[int, list[Reference]]:
    """Each reference that belongs to a list of two or more, by its start: the whole list, in text order."""
    groups: list[list[Reference]] = []
    for ref in sorted(doc.references, key=lambda r: r.start):
        last = groups[-1][-1] if groups else None
        if last is not None and _JOINER.fullmatch(doc.text[last.end:ref.start]):
            groups[-1].append(ref)
        else:
            groups.append([ref])
    return {r.start: g for g in groups if len(g) > 1 for r in g}


def in_order(group: list[Reference], ref: Reference, candidates: list[Section]) -> list[Section]:
    """The candidate sections whose number keeps the list ascending in place of `ref`; none when the list is not
    ascending to begin with (or holds a label that is not a number)."""
    found = [_value(r.label) for r in group]
    values = [v for v in found if v is not None]
    if len(values) < len(found) or any(a >= b for a, b in zip(values, values[1:], strict=False)):
        return []
    i = group.index(ref)
    low = values[i - 1] if i > 0 else None
    high = values[i + 1] if i + 1 < len(values) else None
    out = []
    for section in candidates:
        v = _value(section.number)
        if v is not None and (low is None or v > low) and (high is None or v < high):
            out.append(section)
    return out
