"""Amounts written twice, in words and in figures ("One Million Dollars ($1,000,000)", "thirty (30) days"): the
two must agree. A figure changed on its own would leave "One Million Dollars ($1,500,000)", a slip a lawyer reads
as the injection rather than as the defect it was meant to be; `spelled_before` tells the injector to leave such
a figure alone and `mismatches` lets the verifier reject any edit that leaves words and figures apart.
"""

from __future__ import annotations

import re

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SMALL = {w: i for i, w in enumerate(_UNITS)} | {w: 10 * (i + 2) for i, w in enumerate(_TENS)}
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_WORD = "|".join(sorted([*_SMALL, "hundred", *_SCALES], key=len, reverse=True))
# Number words right before a parenthesised figure: "One Million Five Hundred Thousand U.S. Dollars (US$1,500,000)".
_WORDS_BEFORE = re.compile(rf"(?i:\b(?P<words>(?:{_WORD})(?:(?:[\s\-]+|[\s\-]+and[\s\-]+)(?:{_WORD}))*))"
                           r"(?P<unit>[\s\-]+(?i:(?:united\s+states\s+|u\.?s\.?\s+)?dollars?|percent|per\s+cent))?"
                           r"\s*$")
_FIGURE = re.compile(r"\(\s*(?:US|U\.S\.)?\$?\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?:\.\d\d)?\s*%?\s*\)")


def words_value(words: str) -> int | None:
    """The value of number words (`One Million Five Hundred Thousand` -> 1500000), or None if they are not."""
    total = current = 0
    for token in re.split(r"[\s\-]+", words.lower()):
        if token == "and" or not token:
            continue
        if token in _SMALL:
            current += _SMALL[token]
        elif token == "hundred":
            current = max(current, 1) * 100
        elif token in _SCALES:
            total += max(current, 1) * _SCALES[token]
            current = 0
        else:
            return None
    return total + current


def spelled_before(text: str, start: int) -> bool:
    """Whether the figure starting at `start` ("$1,000,000", inside "($1,000,000)") repeats number words before it."""
    open_paren = text.rfind("(", max(0, start - 6), start + 1)
    if open_paren < 0 or text[open_paren + 1:start].strip(" $USus.") != "":
        return False
    return _WORDS_BEFORE.search(text[max(0, open_paren - 160):open_paren]) is not None


def mismatches(text: str, start: int, end: int) -> list[tuple[int, str]]:
    """Amounts in words and figures that disagree and overlap text[start:end]: (offset, as written)."""
    out = []
    for m in _FIGURE.finditer(text, max(0, start - 200), min(len(text), end + 200)):
        before = _WORDS_BEFORE.search(text[max(0, m.start() - 160):m.start()])
        if before is None:
            continue
        words_start = m.start() - (len(text[max(0, m.start() - 160):m.start()]) - before.start("words"))
        if words_start >= end or m.end() <= start:
            continue  # not touched by the edit (a source's own slip is not the injector's)
        value = words_value(before.group("words"))
        if value is not None and value != int(m.group("n").replace(",", "")):
            out.append((words_start, " ".join(text[words_start:m.end()].split())))
    return out
