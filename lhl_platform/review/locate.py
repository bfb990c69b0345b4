"""Where in a contract a reviewer is shown a finding or a defined term: its string at an occurrence inside the
location the tuple names (its section, the preamble, an exhibit...), as the parser locates every offset; only when
no occurrence lies there, its first occurrence in the contract, and the row says so."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lhl_platform.scrub.document import ParsedContract
from lhl_platform.scrub.normalize import normalize_location


def _occurrences(text: str, needle: str) -> list[int]:
    exact = [m.start() for m in re.finditer(re.escape(needle), text)]
    return exact or [m.start() for m in re.finditer(re.escape(needle), text, re.IGNORECASE)]


def locate(parsed: ParsedContract, needles: Sequence[str | None],
           locations: Sequence[str | None]) -> tuple[int, int, str] | None:
    """(start, end, where it is shown) of the first needle found; None when none occurs in the text. A needle is
    looked for in each location in turn before falling back to its first occurrence anywhere."""
    wanted = [normalize_location(w) for w in locations if w]
    for needle in needles:
        if not needle:
            continue
        found = _occurrences(parsed.text, needle)
        if not found:
            continue
        for place, label in zip(wanted, (w for w in locations if w), strict=True):
            for at in found:
                if normalize_location(parsed.location(at)) == place:
                    return at, at + len(needle), f"shown in {label}, the location it names"
        first = found[0]
        named = " or ".join(str(w) for w in locations if w) or "no location"
        return first, first + len(needle), (f"not found in {named}: shown at its first occurrence in the contract "
                                            f"({parsed.location(first)})")
    return None
