"""An independent check of a location: whether a later section's heading stands between the start of the section
a gold tuple names and its edit.

The section parser (`document`) accepts a number only in sequence, so a skipped number (a redacted `3.2`, an
unnumbered `Section 4` run into the text) can make it read the rest of a contract as one long section: every
tuple after it would then be located in the wrong section by the same parser that checks it. This reads the text
by a different, simpler rule (a dotted number or `Section N` that starts a sentence or a line and is followed by
a capitalised word is a heading), so a location the parser got wrong is caught rather than confirmed.
"""

from __future__ import annotations

import re

from lhl_platform.scrub.document import ParsedContract

# "...[***].   5.2 Mode of Payment", "\n5.2 Mode", "Rights.   Section 5   Consideration".
_HEADING = re.compile(r"(?<![\w.$,])(?:(?:Section|SECTION)[ \t]+(?P<sec>\d{1,2})|(?P<num>\d{1,2}(?:\.\d{1,3}){1,3}))\.?"
                      r"(?=[ \t]+[A-Z][a-z])")
_OPENS = re.compile(r"(?:^|\n|[.\]])[ \t]*$")  # what comes before a heading: a line break or a sentence's end


def _number(label: str) -> tuple[int, ...] | None:
    m = re.fullmatch(r"(\d{1,2}(?:\.\d{1,3}){0,3})(?:\(.*)?", label)
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def later_heading(doc: ParsedContract, location: str, offset: int) -> str | None:
    """The number of a heading later than section `location` between that section's start and `offset`, or None
    (also when `location` is not a numbered section of the contract)."""
    section = next((s for s in doc.sections if s.label == location), None)
    own = _number(section.number) if section is not None else None
    if section is None or own is None or offset < section.start:
        return None
    for m in _HEADING.finditer(doc.text, section.start + 1, offset):
        if not _OPENS.search(doc.text[max(0, m.start() - 8):m.start()]):
            continue
        number = (int(m.group("sec")),) if m.group("sec") else tuple(int(p) for p in m.group("num").split("."))
        if number > own and number[:len(own)] != own and number[0] <= own[0] + 3:
            return ".".join(str(n) for n in number)
    return None
