"""Shared text analysis for the offline judge and models: tokens, numbers, dates, modality, conditions."""

from __future__ import annotations

import re

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
TIME_UNITS = {"day", "days", "week", "weeks", "month", "months", "year", "years", "business", "calendar",
              "quarter", "quarters", "anniversary"}
NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "half": 0.5,
}
OBLIGATORY = {"shall", "must", "will", "required", "obligated", "agrees", "undertakes"}
PERMISSIVE = {"may", "can", "entitled", "permitted", "option", "discretion"}
NEGATIONS = {"not", "no", "never", "neither", "nor", "none", "cannot"}
# Words and phrases that open a condition, carve-out or qualifier (criterion 5).
CONDITION_MARKERS = (
    "except", "unless", "provided that", "provided, however", "provided however", "subject to", "notwithstanding",
    "excluding", "other than", "only", "solely", "if ", "to the extent", "in no event", "up to", "at least",
    "no more than", "not more than", "not less than", "within", "limited to", "conditioned", "contingent",
    "whichever", "save that", "as long as", "so long as", "in the event", "upon", "after the first",
)

_TOKEN = re.compile(r"\$?\d+(?:,\d{3})*(?:\.\d+)?%?|[a-z]+(?:['’][a-z]+)?")
STOPWORDS = {"the", "a", "an", "of", "to", "and", "or", "in", "on", "for", "by", "with", "this", "that", "as",
             "at", "be", "is", "are", "any", "its", "it", "such", "all", "from", "each", "which", "under", "s",
             "agreement", "party", "parties", "hereby", "herein", "thereof", "shall", "will"}
_SECTION_REF = re.compile(r"\b(?:section|sections|article|exhibit|schedule|clause)s?\s+[\dA-Z][\w.()]*", re.I)


def normalise(text: str) -> str:
    text = text.replace("’", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", " ", text).strip().lower()


def tokens(text: str) -> list[str]:
    """Lower-case word/number tokens; section references are dropped (they are cross-references, not values)."""
    return _TOKEN.findall(_SECTION_REF.sub(" ", normalise(text)))


def number_value(token: str) -> float | None:
    if token in NUMBER_WORDS:
        return float(NUMBER_WORDS[token])
    cleaned = token.strip("$%").replace(",", "")
    try:
        return float(cleaned) if cleaned else None
    except ValueError:
        return None


def numbers(toks: list[str]) -> set[float]:
    values = {number_value(t) for t in toks}
    return {v for v in values if v is not None}


def has_month(toks: list[str]) -> bool:
    """True when a month name appears; "may" counts only next to a number (else it is the modal verb)."""
    for i, t in enumerate(toks):
        if t in MONTHS and (t != "may" or any(number_value(n) is not None for n in toks[max(0, i - 1): i + 2])):
            return True
    return False


def content(toks: list[str]) -> set[str]:
    return {t for t in toks if t not in STOPWORDS}


def condition_markers(text: str) -> list[str]:
    padded = f" {normalise(text)} "
    return [m for m in CONDITION_MARKERS if re.search(rf"(?<![a-z]){re.escape(m.strip())}(?![a-z])", padded)]


def modal_classes(toks: list[str]) -> set[str]:
    found = set()
    if any(t in OBLIGATORY for t in toks):
        found.add("obligatory")
    if any(t in PERMISSIVE for t in toks):
        found.add("permissive")
    return found


def negation_count(toks: list[str]) -> int:
    return sum(t in NEGATIONS for t in toks)
