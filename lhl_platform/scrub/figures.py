"""The figure a defined term stands for, when its definition states one: a period ("Initial Term" means a period
of three (3) years ...), an amount ("License Fee" means $50,000) or a date (on April 1, 2024 (the "Effective
Date")). A later use of the term that restates the figure must agree with the definition: the injector changes
one such restatement, or adds one with another figure (`the Initial Term of two (2) years`), and the verifier
accepts an inconsistency of that kind by the same reading."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lhl_platform.scrub.document import Definition, term_pattern
from lhl_platform.scrub.style import DATE, QUANTITY, quantities

FigureKind = str  # "period", "amount" or "date"

# The last word of a term that stands for a figure of that kind: only then does "the <term> of <figure>" read as
# a restatement of its definition.
TERM_WORDS: dict[FigureKind, frozenset[str]] = {
    "period": frozenset({"term", "period"}),
    "amount": frozenset({"fee", "fees", "amount", "price", "payment", "cap", "minimum"}),
    "date": frozenset({"date"}),
}
PERIOD_UNITS = frozenset({"day", "days", "month", "months", "year", "years", "week", "weeks"})
RESTATED_WITHIN = 40  # characters after a use of the term where a figure restates it ("Term of three (3) years")
_VARIABLE = re.compile(r"\b(?:later|earlier|longer|shorter|lesser|greater)\s+of\b|\bextend|\brenew|\bautomatic|"
                       r"\bsuccessive|\bplus\b|\bless\b|\bper\b|\beach\b|\bany\b", re.IGNORECASE)
_NOUN = re.compile(r"[ \t]+(?:calendar[ \t]+|business[ \t]+)?([A-Za-z]+)")


def figure_kind(text: str, start: int, end: int) -> tuple[FigureKind, str] | None:
    """The kind of the figure at text[start:end] and what it counts ("years", or "" for an amount or a date)."""
    if (d := DATE.match(text, start)) and d.end() == end:
        return "date", ""
    m = QUANTITY.match(text, start)
    if m is None or m.end() != end or m.group("pct") or m.group("percent"):
        return None
    if m.group("money"):
        return "amount", ""
    noun = _NOUN.match(text, end)
    if noun and noun.group(1).lower() in PERIOD_UNITS:
        return "period", noun.group(1).lower().rstrip("s")
    return None


@dataclass(frozen=True)
class DefinedFigure:
    """The one figure a definition states: its kind, value (as `quantities` normalises it), what it counts, and
    where it stands in `text` (the definition's body, or what a parenthetical definition defines its term as)."""

    kind: FigureKind
    value: str
    counts: str
    text: str
    start: int
    end: int


def parenthetical_value(term: str, body: str) -> str | None:
    """What a parenthetical definition defines its term as, when the term names a date, a period or an amount and
    that is what stands just before the parenthesis ('commence on April 1, 2024 (the "Effective Date")')."""
    last = term.split()[-1].lower()
    if last in TERM_WORDS["date"] and (m := _TRAILING_DATE.search(body)):
        return m.group(1)
    if last in TERM_WORDS["period"] and (m := _TRAILING_PERIOD.search(body)):
        return f"a period of {' '.join(m.group(1).split())}"
    if last in TERM_WORDS["amount"] and (m := _TRAILING_AMOUNT.search(body)):
        return f"an amount of {m.group(1)}"
    return None


_TRAILING_DATE = re.compile(r"((?:January|February|March|April|May|June|July|August|September|October|November|"
                            r"December)\s+\d{1,2},\s+\d{4})\W*$")
_TRAILING_PERIOD = re.compile(r"\b(?:a|an|the)\s+(?:[a-z]+\s+){0,2}?(?:period|term)\s+of\s+"
                              r"((?:[A-Za-z\-]+\s+)?\(\d{1,3}\)\s+(?:days?|months?|years?|weeks?)|\d{1,3}\s+"
                              r"(?:days?|months?|years?|weeks?))\W*$")
_TRAILING_AMOUNT = re.compile(r"\b(?:of|equal\s+to|is)\s+(\$\d{1,3}(?:,\d{3})+(?:\.\d\d)?|\$\d+(?:\.\d\d)?)\W*$")


def defined_figure(d: Definition) -> DefinedFigure | None:
    """The figure the term stands for: its definition states exactly one, of the kind the term's last word names."""
    body = d.body if d.style == "means" else parenthetical_value(d.term, d.body)
    if body is None or len(body) > 300 or _VARIABLE.search(body):
        return None  # a long definition, or a figure that may come out otherwise (renewed, the later of two)
    found = quantities(body)
    if len(found) != 1:
        return None  # no figure, or several (the term is not one figure)
    start, end, value = found[0]
    kind = figure_kind(body, start, end)
    if kind is None or d.term.split()[-1].lower() not in TERM_WORDS[kind[0]]:
        return None
    return DefinedFigure(kind[0], value, kind[1], body, start, end)


def restatements(term: str, sentence: str) -> list[tuple[int, int, str]]:
    """Each figure of `sentence` that restates the term: within a few characters after a use of it, with no
    other figure between ("the Initial Term of three (3) years"); (start, end, value) in the sentence."""
    out = []
    for m in re.finditer(rf"(?<![\w\-]){term_pattern(term)}(?![\w\-])", sentence):
        after = quantities(sentence[m.end():m.end() + RESTATED_WITHIN])
        if after and re.fullmatch(r"[\s,]*(?:of|is|being|equal\s+to|,)?[\s,]*(?:\(|the\s+)?",
                                  sentence[m.end():m.end() + after[0][0]]):
            s, e, v = after[0]
            out.append((m.end() + s, m.end() + e, v))
    return out


def against_definition(fig: DefinedFigure, sentence: str, start: int, end: int) -> bool:
    """Whether the figure at sentence[start:end] restates the definition's figure with another value."""
    kind = figure_kind(sentence, start, end)
    value = next((v for s, e, v in quantities(sentence) if s == start), None)
    return kind is not None and kind == (fig.kind, fig.counts) and value is not None and value != fig.value
