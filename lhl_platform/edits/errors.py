"""The typed errors of an extractor, applied to a ground-truth clause by the simulated extractors.

Each returns the perturbed text, or None when the clause offers nothing to perturb that way (no
condition to drop, no amount to change...). The perturbations are the judge's error types (docs/method.md, section 4).
"""

from __future__ import annotations

import random
import re

from lhl_platform.lexicon import CONDITION_MARKERS, MONTHS

_ADDED_CONDITIONS = (
    "provided that the other party has first given prior written notice",
    "unless otherwise agreed in writing by the parties",
    "subject to the approval of the board of directors",
    "except as set out in the applicable schedule",
    "only to the extent permitted by applicable law",
)
_NUMBER = re.compile(r"\$?\d+(?:,\d{3})*(?:\.\d+)?%?")
_DATE = re.compile(rf"\b({'|'.join(m.capitalize() for m in MONTHS)})\s+(\d{{1,2}}),\s+(\d{{4}})")
_SECTION_BEFORE = re.compile(r"(section|article|exhibit|schedule|clause)s?\s*$", re.IGNORECASE)
_MODAL = {"shall": "may", "must": "may", "will": "may", "may": "shall"}


def _tidy(text: str) -> str:
    text = re.sub(r"\s+([,.;])", r"\1", re.sub(r"\s{2,}", " ", text)).strip(" ,;")
    return text[:1].upper() + text[1:]


def drop_condition(text: str, rng: random.Random) -> str | None:
    """Remove one carve-out/qualifier: from a marker word to the next comma, semicolon or period."""
    spans = []
    for marker in CONDITION_MARKERS:
        for m in re.finditer(rf"(?<![A-Za-z]){re.escape(marker.strip())}(?![A-Za-z])", text, flags=re.IGNORECASE):
            end = re.search(r"[,;.](?!\d)|$", text[m.end():])
            stop = m.end() + (end.start() if end else 0)
            spans.append((m.start(), stop + (1 if stop < len(text) and text[stop] == "," else 0)))
    spans = [(a, b) for a, b in spans if 3 <= b - a < 0.8 * len(text)]
    if not spans:
        return None
    start, stop = rng.choice(sorted(spans))
    result = _tidy(text[:start] + " " + text[stop:])
    return result if result and result != text else None


def add_condition(text: str, rng: random.Random) -> str:
    body = text.rstrip(" .;")
    return f"{body}, {rng.choice(_ADDED_CONDITIONS)}."


_UNIT_AFTER = re.compile(r"^\)?\s*(?:business\s+|calendar\s+)?(?:day|week|month|year|quarter)s?\b", re.IGNORECASE)
_MONTH_BEFORE = re.compile(rf"(?:{'|'.join(MONTHS)})\s*\d{{0,2}},?\s*$", re.IGNORECASE)


def _near_time(text: str, start: int, end: int) -> bool:
    """A number that counts time: followed by a time unit ("30) days") or part of a date ("May 2, 2024")."""
    return bool(_UNIT_AFTER.match(text[end:end + 20]) or _MONTH_BEFORE.search(text[max(0, start - 14):start]))


def change_amount(text: str, rng: random.Random) -> str | None:
    """Change an amount, percentage or count that is not a date or a duration."""
    candidates = [m for m in _NUMBER.finditer(text) if not _near_time(text, m.start(), m.end())
                  and not _SECTION_BEFORE.search(text[max(0, m.start() - 12): m.start()])]
    if not candidates:
        return None
    m = rng.choice(candidates)
    token = m.group(0)
    digits = token.strip("$%").replace(",", "")
    value = float(digits)
    new_value = value * rng.choice((2, 3, 10)) if value >= 1 else value + 1
    formatted = f"{int(new_value):,}" if new_value == int(new_value) and "," in token else (
        str(int(new_value)) if new_value == int(new_value) else f"{new_value:g}")
    new_token = ("$" if token.startswith("$") else "") + formatted + ("%" if token.endswith("%") else "")
    return text[: m.start()] + new_token + text[m.end():]


def shift_date(text: str, rng: random.Random) -> str | None:
    """Shift a calendar date or change the number of a duration (days, months, years)."""
    date = _DATE.search(text)
    if date:
        day = int(date.group(2))
        new_day = day + rng.choice((1, 2, 7)) if day < 20 else day - rng.choice((1, 2, 7))
        return text[: date.start(2)] + str(new_day) + text[date.end(2):]
    durations = [m for m in _NUMBER.finditer(text) if _near_time(text, m.start(), m.end())]
    if not durations:
        return None
    m = rng.choice(durations)
    value = int(float(m.group(0).strip("$%").replace(",", "")))
    return text[: m.start()] + str(value * 2 if value > 0 else 1) + text[m.end():]


# A modal under "no", "neither", ... ("neither party shall") keeps its force when swapped for "may".
_UNDER_NEGATOR = re.compile(r"\b(?:no|neither|nor|nothing|none|never)\b[^,;.]{0,40}$", re.IGNORECASE)


def flip_modal(text: str, rng: random.Random) -> str | None:
    """Change legal force: shall/must/will -> may, may -> shall, and a prohibition (shall not) -> may."""
    for m in re.finditer(r"\b(shall|must|will|may)\b(\s+not\b)?", text):
        if _UNDER_NEGATOR.search(text[: m.start()]):
            continue
        return text[: m.start()] + ("may" if m.group(2) else _MODAL[m.group(1)]) + text[m.end():]
    return None


def wrong_passage(sentences: list[str], avoid: tuple[str, ...], rng: random.Random) -> str | None:
    """Quote a different sentence of the contract: the right clause type, the wrong text."""
    pool = [s for s in sentences if len(s) > 40 and not any(s in a or a in s for a in avoid)]
    return rng.choice(pool) if pool else None
