"""The drafting conventions injected text must follow, read from the contract itself, and the small pieces of
legal English the injector and the rule-based scrubber share: number words, quantities, sentence boundaries,
headings, title case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lhl_platform.scrub.amounts import spelled_before

# --- number words ------------------------------------------------------------------------------------------

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def number_words(n: int) -> str:
    """0 <= n < 1,000,000 in words, as contracts spell them: `forty-five`, `one hundred twenty`."""
    if not 0 <= n < 1_000_000:
        raise ValueError(f"{n} is out of range for number words")
    if n < 20:
        return _UNITS[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _TENS[tens] + (f"-{_UNITS[unit]}" if unit else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_UNITS[hundreds]} hundred" + (f" {number_words(rest)}" if rest else "")
    thousands, rest = divmod(n, 1000)
    return f"{number_words(thousands)} thousand" + (f" {number_words(rest)}" if rest else "")


def match_case(template: str, words: str) -> str:
    """`words` in the casing of `template` (all capitals, initial capital, or lower case)."""
    if template.isupper():
        return words.upper()
    if template[:1].isupper():
        return words[:1].upper() + words[1:]
    return words


# --- quantities --------------------------------------------------------------------------------------------

_NUMBER_WORD = "|".join(sorted([*_UNITS, *_TENS[2:], "hundred", "thousand"], key=len, reverse=True))
_UNIT = (r"(?:business\s+days?|calendar\s+days?|days?|months?|years?|weeks?|hours?|quarters?|percent|per\s+cent|"
         r"%|Business\s+Days?)")
# "thirty (30) days", "five percent (5%)", "30 days", "5%", "$84,000" (the amount or count is group "n", "n2" or
# "money").
QUANTITY = re.compile(
    rf"(?P<words>\b(?i:{_NUMBER_WORD})(?:[- ](?i:{_NUMBER_WORD}|and))*)(?P<percent>\s+percent)?"
    rf"\s+\((?P<n>\d{{1,6}})(?P<pct>%?)\)"
    rf"|(?<![\w.,$])(?P<n2>\d{{1,4}})(?=\s*{_UNIT})"
    r"|\$(?P<money>\d{1,3}(?:,\d{3})+|\d{1,9})(?P<cents>\.\d{2})?(?!\d|,\d)"
)
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
DATE = re.compile(r"\b(?P<month>" + "|".join(_MONTHS) + r")\s+(?P<day>\d{1,2}),\s+(?P<year>(?:19|20)\d\d)\b")


def quantities(text: str) -> list[tuple[int, int, str]]:
    """Every quantity and date in `text`: (start, end, normalised value), the value comparable across spellings
    (`thirty (30) days` and `30 days` are both `30`)."""
    found = []
    for m in QUANTITY.finditer(text):
        value = m.group("n") or m.group("n2") or (m.group("money") or "").replace(",", "")
        found.append((m.start(), m.end(), value))
    found += [(m.start(), m.end(), f"{m.group('month')} {int(m.group('day'))}, {m.group('year')}")
              for m in DATE.finditer(text)]
    return sorted(found)


def _round(value: float, n: int) -> int:
    """`value` rounded as drafters write figures of the size of `n` (5s for tens, 50s for hundreds, ...)."""
    step = 1 if n < 10 else 5 if n < 100 else 50 if n < 1000 else 10 ** (len(str(n)) - 2)
    return max(step, int(round(value / step)) * step)


def shifted_number(n: int, pick: int) -> int:
    """A different, plausible figure for a quantity `n` (a period, a count, an amount): `pick` chooses among a
    few (double, one and a half times, half), so a seeded caller gets variety."""
    if n <= 1:
        options = [2, 3]
    elif n < 10:
        options = [n + 1, n * 2, n - 1]
    else:
        options = [n * 2, _round(n * 1.5, n), _round(n / 2, n)]
    options = [o for o in dict.fromkeys(options) if o != n and o > 0]
    return options[pick % len(options)]


def shift_quantity(text: str, start: int, end: int, pick: int) -> str | None:
    """The quantity or date at text[start:end] with a different value, spelled the same way; None when it
    cannot be changed."""
    date = DATE.match(text, start)
    if date and date.end() == end:
        day = int(date.group("day"))
        new_day = day + 14 if day <= 14 else day - 14
        return f"{date.group('month')} {new_day}, {date.group('year')}"
    m = QUANTITY.match(text, start)  # matched in place: "30" of "30 days" needs the unit that follows
    if m is None or m.end() != end:
        return None
    if m.group("n") is not None:
        new = shifted_number(int(m.group("n")), pick)
        return f"{match_case(m.group('words'), number_words(new))}{m.group('percent') or ''} ({new}{m.group('pct')})"
    if m.group("n2") is not None:
        return str(shifted_number(int(m.group("n2")), pick))
    if spelled_before(text, start):
        return None  # "One Million Dollars ($1,000,000)": a new figure would disagree with the words
    amount = int(m.group("money").replace(",", ""))
    new = shifted_number(amount, pick)
    spelled = f"{new:,}" if "," in m.group("money") or new >= 10_000 else str(new)
    return f"${spelled}{m.group('cents') or ''}"


# Count nouns a figure governs, singular -> plural: "one (1) month" but "two (2) months".
COUNT_NOUNS = {"day": "days", "month": "months", "year": "years", "week": "weeks", "hour": "hours",
               "quarter": "quarters", "copy": "copies", "business day": "business days",
               "calendar day": "calendar days", "installment": "installments", "time": "times", "unit": "units",
               "member": "members", "representative": "representatives", "occasion": "occasions"}
_PLURAL_TO_SINGULAR = {v: k for k, v in COUNT_NOUNS.items()}
# After the noun: the noun stands on its own ("one (1) year after"), not as a modifier ("a one (1) year term").
_NOUN_ENDS = re.compile(r"\s*(?:[.,;:)]|$|(?:of|after|from|following|prior|before|in|and|or|thereafter|to|"
                        r"notice|written)\b)")
_COUNT_NOUN = re.compile(r"(?P<gap>\s+)(?P<noun>(?i:business\s+days?|calendar\s+days?|[a-z]+))")


def counted_noun(text: str, end: int) -> tuple[int, int, str] | None:
    """The count noun right after a figure ending at `end`: (start, end, lower-cased noun), or None."""
    m = _COUNT_NOUN.match(text, end)
    if m is None:
        return None
    noun = " ".join(m.group("noun").lower().split())
    if noun not in COUNT_NOUNS and noun not in _PLURAL_TO_SINGULAR:
        return None
    return m.start("noun"), m.end("noun"), noun


def agreement_error(text: str, start: int, end: int, value: int) -> bool:
    """Whether the figure `value` at text[start:end] disagrees in number with the noun it counts ("two (2) copy",
    "one (1) months"); a singular noun modifying another ("a two (2) year term") agrees."""
    found = counted_noun(text, end)
    if found is None:
        return False
    _, noun_end, noun = found
    if value == 1:
        return noun in _PLURAL_TO_SINGULAR
    return noun in COUNT_NOUNS and bool(_NOUN_ENDS.match(text, noun_end))


def shift_in_agreement(text: str, start: int, end: int, pick: int) -> tuple[int, str] | None:
    """Like `shift_quantity`, and the noun the figure counts made to agree with the new figure: the end of the
    span replaced (past the noun when it changes) and its replacement; None when no agreeing change exists."""
    m = QUANTITY.match(text, start)
    if m is None or m.end() != end or DATE.match(text, start):
        new = shift_quantity(text, start, end, pick)
        return None if new is None else (end, new)
    raw = m.group("n") or m.group("n2")
    if raw is None or m.group("pct") or m.group("percent"):
        new = shift_quantity(text, start, end, pick)
        return None if new is None else (end, new)
    old = int(raw)
    found = counted_noun(text, end)
    for k in range(3):
        new = shift_quantity(text, start, end, pick + k)
        if new is None:
            return None
        value = int(re.findall(r"\d+", new)[-1])
        if (value == 1) == (old == 1):
            return end, new
        if found is None or not _NOUN_ENDS.match(text, found[1]):
            continue  # "one (1) copy" or "a one (1) year term": nothing to inflect safely
        noun_start, noun_end, noun = found
        written = text[noun_start:noun_end]
        inflected = COUNT_NOUNS.get(noun) if value != 1 else _PLURAL_TO_SINGULAR.get(noun)
        if inflected is None:
            continue
        return noun_end, new + text[end:noun_start] + match_case(written, inflected)
    return None


# --- sentences, headings and casing ------------------------------------------------------------------------

_ABBREVIATIONS = {"inc", "ltd", "co", "no", "corp", "sec", "st", "mr", "ms", "mrs", "dr", "vs", "e.g", "i.e", "u.s",
                  "n.a", "l.p", "s.a", "n.v", "b.v", "p.c", "l.l.c", "jr", "sr", "etc", "art", "para", "approx"}
_END_MARK = re.compile(r"[.!?;](?=[\s\"”')]|$)|\n[ \t]*\n")


def _is_sentence_end(text: str, m: re.Match[str], semicolons: bool) -> bool:
    mark = m.group()
    if mark.startswith("\n"):
        return True
    if mark == ";":
        return semicolons
    if mark != ".":
        return True
    before = text[max(0, m.start() - 16):m.start()]
    word = re.search(r"([A-Za-z.]+)$", before)
    if word is None:  # after a figure: "April 1, 2024." ends a sentence, "Section 2." does not
        return not re.search(r"\b(?:Section|SECTION|Article|ARTICLE|No)\.?\s+[\d.]+$", before)
    token = word.group(1).lower().rstrip(".")
    return not (token in _ABBREVIATIONS or len(token) == 1)


def sentence_bounds(text: str, offset: int, *, semicolons: bool = False) -> tuple[int, int]:
    """The sentence around `offset`: from after the previous sentence end or paragraph break to its own end
    (the mark included); with `semicolons`, a semicolon ends it too (items of a list of definitions)."""
    start = 0
    for m in _END_MARK.finditer(text, max(0, offset - 3000), offset):
        if m.end() <= offset and _is_sentence_end(text, m, semicolons):
            start = m.end()
    end = len(text)
    for m in _END_MARK.finditer(text, offset):
        if _is_sentence_end(text, m, semicolons):
            end = m.start() if m.group().startswith("\n") else m.end()
            break
    while start < end and text[start] in " \t\r\n":
        start += 1
    return start, end


_NUMBERED_LEAD = re.compile(r"[ \t\"“'(\[]*(?:(?:Section|SECTION|Article|ARTICLE)\s+)?(?:\d+(?:\.\d+)*\.?|"
                            r"\([a-zA-Z0-9]{1,4}\)|[A-Za-z]\.|[ivxIVX]{1,4}\.)[ \t\"“'(\[]*")


def starts_sentence(text: str, offset: int) -> bool:
    """Whether a word at `offset` is the first of its sentence or of a numbered item (where a capital is normal)."""
    line_start = text.rfind("\n", 0, offset) + 1
    if _NUMBERED_LEAD.fullmatch(text[line_start:offset]):
        return True
    p = offset - 1
    while p >= 0 and text[p] in " \t\r\n\"“”'([":
        p -= 1
    if p < 0 or text[p] in "!?:":
        return True
    if text[p] == ".":
        word = re.search(r"([A-Za-z.]+)$", text[max(0, p - 12):p])
        return word is None or word.group(1).lower().rstrip(".") not in _ABBREVIATIONS
    return "\n" in text[p:offset] and text[p:offset].count("\n") >= 2  # a paragraph break


def line_at(text: str, offset: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return start, len(text) if end < 0 else end


def in_heading(text: str, offset: int) -> bool:
    """Whether `offset` sits in a heading line: short, no sentence punctuation at its end, mostly capitalised."""
    start, end = line_at(text, offset)
    line = text[start:end].strip()
    if not line or len(line) > 90 or line.endswith((".", ";", ",")) and len(line) > 60:
        return False
    words = re.findall(r"[A-Za-z]+", line)
    if not words:
        return False
    capitalised = sum(w[0].isupper() for w in words if len(w) > 3)
    long_words = sum(len(w) > 3 for w in words)
    return line.isupper() or (long_words > 0 and capitalised == long_words and not line.endswith("."))


def mostly_upper(text: str, start: int, end: int) -> bool:
    letters = [c for c in text[start:end] if c.isalpha()]
    return bool(letters) and sum(c.isupper() for c in letters) > 0.6 * len(letters)


_SMALL_WORDS = {"a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with"}


def title_case(phrase: str) -> str:
    """A phrase as a defined term is written: every word capitalised but small inner words."""
    def cap(word: str) -> str:
        return "-".join(part[:1].upper() + part[1:] for part in word.split("-"))

    words = phrase.split(" ")
    return " ".join(w if (i and w in _SMALL_WORDS) else cap(w) for i, w in enumerate(words))


# --- the contract's own style ------------------------------------------------------------------------------

@dataclass(frozen=True)
class DraftingStyle:
    """How this contract writes what injected text must also write."""

    open_quote: str  # `"` or `“`
    close_quote: str
    means: str  # "means" or "shall mean"
    self_name: str  # "this Agreement" (or "this agreement", "this Contract")

    def quoted(self, term: str) -> str:
        return f"{self.open_quote}{term}{self.close_quote}"


def drafting_style(text: str) -> DraftingStyle:
    curly = text.count("“")
    straight = text.count('"')
    shall_mean = len(re.findall(r"[\"”]\s*shall\s+mean\b", text))
    means = len(re.findall(r"[\"”]\s*means\b", text))
    names = re.findall(r"\bthis\s+(Agreement|agreement|Contract|contract)\b", text)
    self_name = max(set(names), key=names.count) if names else "Agreement"
    return DraftingStyle(open_quote="“" if curly > straight else '"', close_quote="”" if curly > straight else '"',
                         means="shall mean" if shall_mean > means else "means", self_name=f"this {self_name}")
