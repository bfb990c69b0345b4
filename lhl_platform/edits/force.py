"""The minimal edits of the judge-validation suite (LexFlip): each applied to an annotated span, with the verdict
and mismatch type a judge should give by construction.

(a) `identical`: the span itself, or reformatted (whitespace, letter case, quote style): supported.
(b) `force_changed`: a minimal edit that changes legal force while keeping almost every token (modality
    shall/may, a negation added or dropped, an amount, a duration, a date, before/after, all/some, the two
    parties swapped, a condition dropped or added): contradicted, each kind with the mismatch_type a judge
    should name.
(c) `force_kept`: a rewrite of the surface that keeps legal force (plain English for legalese, number words for
    figures, a modal synonym of the same force, section numbering, the order of two coordinated words, the
    article of a defined term): supported.

An edit returns None where it does not apply (no modal to flip, no condition to drop...), so every item made
with it is valid.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from lhl_platform.domain.models import MismatchType


class Family(StrEnum):
    IDENTICAL = "identical"  # (a)
    FORCE_CHANGED = "force_changed"  # (b)
    FORCE_KEPT = "force_kept"  # (c)
    UNRELATED = "unrelated"  # (d) another clause altogether: the far end of the LexFlip margin


Edit = Callable[[str, random.Random], str | None]
_SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_WORD_VALUES = {w: i for i, w in enumerate(_SMALL)} | {w: 10 * i for i, w in enumerate(_TENS) if w != "_"}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMWORD = "(?:" + "|".join(sorted([*_WORD_VALUES, *_SCALES], key=len, reverse=True)) + ")"
_NUMWORDS = rf"\b{_NUMWORD}(?:[\s-]+(?:and[\s-]+)?{_NUMWORD})*\b"
_FIGURE = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_SPELLED = re.compile(
    rf"(?P<words>{_NUMWORDS})(?P<unit>\s+(?:percent|per\s+cent|(?:U\.?S\.?\s+)?dollars))?\s*"
    rf"\(\s*(?P<cur>\$|US\$|USD\s?)?(?P<num>{_FIGURE})\s*(?P<pct>%)?\s*\)", re.IGNORECASE)
_DURATION_UNIT = re.compile(r"^[)\]]*[\s-]*(?:(?:business|calendar|consecutive|working|full)[\s-]+)*"
                            r"(?P<unit>day|week|month|year|quarter|hour)(?P<plural>s)?\b", re.IGNORECASE)
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December")
_MODALS = re.compile(r"\b(shall|must|may|will)\b", re.IGNORECASE)
_NEGATORS = re.compile(r"\b(?:no|not|neither|nor|nothing|none|never)\b", re.IGNORECASE)
# Words before a modal that make it hedge rather than bind ("as the case may be", "which may be").
_HEDGE_BEFORE = re.compile(r"\b(?:as|case|which|that|what|whatever|whichever|it|there|this|they|who)\s*$",
                           re.IGNORECASE)
_NAMING_AFTER = re.compile(r"^\s+(?:\w+\s+)?be\s+(?:referred|known|called|designated)\b", re.IGNORECASE)
_PERMISSION_AFTER = re.compile(r"^\s+(?:\([a-z0-9]{1,4}\)\s+)?(?:(?:only|also|further|then|thereafter|still)\s+)?"
                               r"(?:be\s+entitled|have\s+the\s+(?:right|option)|"
                               r"be\s+permitted|be\s+allowed|be\s+free|be\s+authori[sz]ed|be\s+prohibited|not|never|"
                               r"in\s+no\s+event|only|have\s+no|be\s+under\s+no)\b", re.IGNORECASE)


def int_to_words(n: int) -> str:
    """English words for a non-negative integer below one billion ("one hundred twenty-five")."""
    if n < 20:
        return _SMALL[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _SMALL[n % 10])
    if n < 1000:
        return _SMALL[n // 100] + " hundred" + ("" if n % 100 == 0 else " " + int_to_words(n % 100))
    for scale, size in (("million", 1_000_000), ("thousand", 1_000)):
        if n >= size:
            head, rest = divmod(n, size)
            return int_to_words(head) + f" {scale}" + ("" if rest == 0 else " " + int_to_words(rest))
    raise ValueError(n)


def words_to_int(text: str) -> int | None:
    total = current = 0
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _WORD_VALUES:
            current += _WORD_VALUES[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _SCALES:
            total += max(current, 1) * _SCALES[word]
            current = 0
        elif word != "and":
            return None
    return total + current


def _figure(text: str) -> float:
    return float(text.replace(",", ""))


def _format_figure(value: float, like: str) -> str:
    if value != int(value):
        return f"{value:g}"
    digits = f"{int(value):,}" if "," in like or (value >= 10_000 and "." not in like) else str(int(value))
    return digits + (".00" if re.search(r"\.\d\d$", like) else "")


def _match_case(original: str, replacement: str) -> str:
    if original.isupper() and len(original) > 1:
        return replacement.upper()
    words = original.split()
    if len(words) > 1 and all(w[:1].isupper() for w in words):
        return " ".join(w[:1].upper() + w[1:] for w in replacement.split())
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def _tidy(text: str) -> str:
    text = re.sub(r"\s+([,.;:)])", r"\1", re.sub(r"[ \t]{2,}", " ", text))
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r",\s*([,.;])", r"\1", text).strip(" ,;")
    return text[:1].upper() + text[1:] if text[:1].islower() and text[:1].isalpha() else text


def _squash(text: str) -> str:
    """Runs of whitespace as one space (a leading space is kept, as the patterns expect one)."""
    return re.sub(r"\s+", " ", text)


def _negated_context(text: str, start: int) -> bool:
    """A negator earlier in the same clause (within a few words): the modal sits in a prohibition."""
    window = re.sub(r"\([a-z0-9]{1,4}\)", " ", text[max(0, start - 80):start], flags=re.IGNORECASE)
    clause = re.split(r"[,;:(]|\.(?!\d)", window)[-1]
    return bool(_NEGATORS.search(" ".join(clause.split()[-5:])))


def _choose(rng: random.Random, options: Sequence[tuple[int, int, str]], text: str) -> str | None:
    """Apply one of the (start, end, replacement) options."""
    if not options:
        return None
    start, end, new = options[rng.randrange(len(options))]
    return text[:start] + new + text[end:]


def _binding_modals(text: str) -> list[re.Match[str]]:
    """Modal verbs used to bind or permit: not a month, not hedged, not under a negation."""
    found = []
    for m in _MODALS.finditer(text):
        word, after, before = m.group(1).lower(), _squash(text[m.end():m.end() + 120]), text[:m.start()]
        if word == "may" and (re.match(r"^\s*,?\s*\d", after) or re.search(r"(?:\d|\bday\s+of)\s*$", before)):
            continue  # the month
        if word == "will" and not re.match(r"^\s+[a-z]", after):
            continue
        if _HEDGE_BEFORE.search(before) or _negated_context(text, m.start()) or _NAMING_AFTER.match(after):
            continue
        if word == "may" and re.match(r"^\s+be\s+(?!\w+(?:ed|en)\b)", after):
            continue  # "may be in contract with": a possibility, not a permission
        found.append(m)
    return found


# --------------------------------------------------------------------------------------------------
# (a) identical and reformatted
# --------------------------------------------------------------------------------------------------

def _verbatim(text: str, rng: random.Random) -> str | None:
    return text


def _whitespace(text: str, rng: random.Random) -> str | None:
    gaps = [m.start() for m in re.finditer(r" ", text)]
    if len(gaps) < 2:
        return None
    chosen = set(rng.sample(gaps, max(1, len(gaps) // 3)))
    out = "".join(rng.choice(("  ", "\n", " \n ", "\t")) if i in chosen else c for i, c in enumerate(text))
    return "\n " + out + "  "


def _case(text: str, rng: random.Random) -> str | None:
    if not re.search(r"[a-z]", text):
        return text.lower() if re.search(r"[A-Z]", text) else None
    return text.upper()


_STRAIGHT_QUOTES = str.maketrans("“”‘’", "\"\"''")


def _quotes(text: str, rng: random.Random) -> str | None:
    if re.search(r"[“”‘’]", text):
        return text.translate(_STRAIGHT_QUOTES)
    if '"' not in text and "'" not in text:
        return None
    out, opened = [], False
    for c in text:
        if c == '"':
            out.append("”" if opened else "“")
            opened = not opened
        else:
            out.append("’" if c == "'" else c)
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# (b) edits that change legal force
# --------------------------------------------------------------------------------------------------

def _modality(text: str, rng: random.Random) -> str | None:
    options = []
    for m in _binding_modals(text):
        word = m.group(1).lower()
        if word == "will" or _PERMISSION_AFTER.match(_squash(text[m.end():m.end() + 120])):
            continue
        options.append((m.start(), m.end(), _match_case(m.group(1), "shall" if word == "may" else "may")))
    return _choose(rng, options, text)


def _negation_added(text: str, rng: random.Random) -> str | None:
    options = [(m.end(), m.end(), " NOT" if m.group(1).isupper() else " not") for m in _binding_modals(text)
               if not re.match(r"^\s+(?:\([a-z0-9]{1,4}\)\s+)?(?:not|never|only|in\s+no\s+event)\b", text[m.end():],
                               re.I)]
    return _choose(rng, options, text)


_NOT_AFTER_VERB = re.compile(r"\b(?:(?i:shall|must|may|will|can|agrees?|undertakes?|covenants?)|would|should|could|"
                             r"does|do|did|is|are|was|were)(\s+(?i:not))\b(?!\s+only\b)")


def _negation_dropped(text: str, rng: random.Random) -> str | None:
    # Under "neither"/"no" a second negation is a drafting slip, and dropping it changes nothing.
    options = [(m.start(1), m.end(1), "") for m in _NOT_AFTER_VERB.finditer(text)
               if not _negated_context(text, m.start())]
    options += [(m.start(), m.end(), _match_case(m.group(0), "can")) for m in re.finditer(r"\bcannot\b", text, re.I)]
    return _choose(rng, options, text)


def _spelled_matches(text: str) -> list[re.Match[str]]:
    return [m for m in _SPELLED.finditer(text) if words_to_int(m.group("words")) == _figure(m.group("num"))]


def _is_duration(text: str, end: int) -> bool:
    return _DURATION_UNIT.match(text[end:end + 40]) is not None


def _new_amount(value: float, percent: bool) -> float:
    if percent:
        return value * 2 if value * 2 <= 100 else value / 2
    return value * 10 if value >= 1 else value + 1


def _amount(text: str, rng: random.Random) -> str | None:
    options: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for m in _spelled_matches(text):
        if _is_duration(text, m.end()):
            continue
        taken.append(m.span())
        value = _figure(m.group("num"))
        new = _new_amount(value, bool(m.group("pct") or (m.group("unit") and "cent" in m.group("unit").lower())))
        if new != int(new):
            continue
        replacement = (_match_case(m.group("words"), int_to_words(int(new))) + (m.group("unit") or "") + " ("
                       + (m.group("cur") or "") + _format_figure(new, m.group("num")) + (m.group("pct") or "") + ")")
        options.append((m.start(), m.end(), replacement))
    money = re.finditer(rf"(?P<cur>\$|US\$|USD\s?|EUR\s?|€|£)\s?(?P<num>{_FIGURE})", text)
    percent = re.finditer(rf"(?<![\d.,])(?P<num>{_FIGURE})\s*(?P<pct>%|percent\b)", text, re.IGNORECASE)
    for m in [*money, *percent]:
        if any(a <= m.start() < b for a, b in taken) or _is_duration(text, m.end()):
            continue
        is_pct = "pct" in m.groupdict() and m.group("pct") is not None
        new = _new_amount(_figure(m.group("num")), is_pct)
        options.append((m.start("num"), m.end("num"), _format_figure(new, m.group("num"))))
    return _choose(rng, options, text)


def _pluralise_after(text: str, start: int, old: float, new: float) -> str:
    unit = _DURATION_UNIT.match(text[start:start + 40])
    if unit is None or re.search(r"-\s*$", text[start:start + unit.start("unit")]):
        return text
    at = start + unit.end("unit")
    if old == 1 and new != 1 and not unit.group("plural"):
        return text[:at] + _match_case(unit.group("unit")[-1], "s") + text[at:]
    return text


def _duration(text: str, rng: random.Random) -> str | None:
    options: list[tuple[int, int, str, float, float]] = []
    taken: list[tuple[int, int]] = []
    for m in _spelled_matches(text):
        taken.append(m.span())
        if m.group("unit") or not _is_duration(text, m.end()):
            continue
        value = _figure(m.group("num"))
        new = value * 2 if value >= 1 else 1
        figure = _format_figure(new, m.group("num"))
        replacement = _match_case(m.group("words"), int_to_words(int(new))) + f" ({figure})"
        options.append((m.start(), m.end(), replacement, value, new))
    for m in re.finditer(rf"(?<![\d.,$])(?P<num>\d{{1,4}})(?![\d.,%])|(?P<words>{_NUMWORDS})", text, re.IGNORECASE):
        if any(a <= m.start() < b for a, b in taken) or not _is_duration(text, m.end()):
            continue
        if m.group("num"):
            value = float(m.group("num"))
            new = value * 2 if value >= 1 else 1
            options.append((m.start(), m.end(), str(int(new)), value, new))
        else:
            spoken = words_to_int(m.group("words"))
            if spoken is None or spoken == 0:
                continue
            options.append((m.start(), m.end(), _match_case(m.group("words"), int_to_words(2 * spoken)), spoken,
                            2 * spoken))
    if not options:
        return None
    start, end, new_text, old, new = options[rng.randrange(len(options))]
    edited = text[:start] + new_text + text[end:]
    return _pluralise_after(edited, start + len(new_text), old, new)


_DATES = (
    re.compile(rf"\b(?P<month>{_MONTHS})\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>(?:19|20)\d\d)\b"),
    re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?(?P<month>{_MONTHS}),?\s+"
               r"(?P<year>(?:19|20)\d\d)\b"),
    re.compile(rf"\b(?P<month>{_MONTHS}),?\s+(?P<year>(?:19|20)\d\d)\b"),
)


def _date(text: str, rng: random.Random) -> str | None:
    for pattern in _DATES:
        matches = list(pattern.finditer(text))
        if not matches:
            continue
        m = rng.choice(matches)
        if "day" in m.groupdict() and rng.random() < 0.6:
            day = int(m.group("day"))
            new_day = day + rng.choice((1, 2, 7)) if day < 20 else day - rng.choice((1, 2, 7))
            return text[:m.start("day")] + str(new_day) + text[m.end("day"):]
        year = int(m.group("year"))
        return text[:m.start("year")] + str(year + rng.choice((1, -1))) + text[m.end("year"):]
    return None


_ORDER_SWAP = {"before": "after", "prior to": "after", "after": "before", "preceding": "following"}


def _before_after(text: str, rng: random.Random) -> str | None:
    options = [(m.start(), m.end(), _match_case(m.group(0), _ORDER_SWAP[re.sub(r"\s+", " ", m.group(0).lower())]))
               for m in re.finditer(r"\b(?:before|prior\s+to|after|preceding)\b(?!-)", text, re.IGNORECASE)]
    return _choose(rng, options, text)


def _all_some(text: str, rng: random.Random) -> str | None:
    options = []
    for m in re.finditer(r"\b(?:all|every)\b", text, re.IGNORECASE):
        before = " ".join(text[max(0, m.start() - 40):m.start()].lower().split()[-2:])
        after = " " + " ".join(text[m.end():m.end() + 60].lower().split()[:3])
        if re.search(r"\b(?:and|or)\s*$", before) or re.match(r"\s+or\s+(?:substantially|any)\b", after):
            continue  # "any and all", "all or substantially all", "all or any part": fixed phrases
        if re.match(rf"\s+(?:\d|{_NUMWORD}\b)", after, re.IGNORECASE):
            continue  # "every four years" is a period, "some four years" an estimate
        if re.search(r"\bat\s*$", before) and not re.match(r"\s+times", after):
            continue  # "at all" means "whatsoever"
        options.append((m.start(), m.end(), _match_case(m.group(0), "some")))
    return _choose(rng, options, text)


ROLES = ("Licensor", "Licensee", "Sublicensee", "Franchisor", "Franchisee", "Supplier", "Customer", "Buyer",
         "Seller", "Purchaser", "Vendor", "Distributor", "Manufacturer", "Reseller", "Company", "Consultant",
         "Contractor", "Client", "Provider", "Recipient", "Lessor", "Lessee", "Landlord", "Tenant", "Employer",
         "Employee", "Owner", "Developer", "Publisher", "Sponsor", "Investor", "Borrower", "Lender", "Operator",
         "Agent", "Principal", "Producer", "Marketer", "Endorser", "Bank", "Member", "Manager", "Shipper",
         "Carrier", "Collaborator", "Partner", "Affiliate")


def _party_swap(text: str, rng: random.Random) -> str | None:
    present = [r for r in ROLES if r != "Affiliate" and re.search(rf"\b{r}\b", text)
               and not re.search(rf"(?:[A-Z][\w@.&-]*\s+{r}|\b{r}\s+of\s+[A-Z]|[\w@]{r}|{r}[\w@])", text)]
    if len(present) < 2 or re.search(r"\b(?:respectively|each\s+party|either\s+party|both\s+parties)\b", text, re.I):
        return None
    a, b = rng.sample(present, 2)
    if re.search(rf"\b(?:{a}|{b})(?:'s)?\s*(?:,|and|or|nor|and/or)\s*(?:the\s+)?(?:{a}|{b})\b", text):
        return None  # "A and B" reads the same swapped
    return re.sub(rf"\b({a}|{b})\b", lambda m: b if m.group(1) == a else a, text)


_DROPPABLE = re.compile(
    r"\b(?:except|unless|provided(?:,)?\s+(?:however|that)|subject\s+to|notwithstanding|excluding|other\s+than|"
    r"if|to\s+the\s+extent|so\s+long\s+as|as\s+long\s+as|in\s+the\s+event|only|solely|without\s+the\s+prior|"
    r"save\s+that|conditioned\s+(?:up)?on|contingent\s+(?:up)?on)\b", re.IGNORECASE)
_BOILERPLATE = re.compile(r"^subject\s+to\s+the\s+terms(?:\s+and\s+conditions)?\s+(?:of\s+this\s+agreement|hereof)",
                          re.IGNORECASE)
_TRIVIAL = re.compile(r"^(?:if\s+any|if\s+applicable|only\s+(?:one|once|two)|if\s+and)\b", re.IGNORECASE)


_ABBREVIATION = re.compile(r"(?:\b[A-Za-z]|\b(?:Inc|Ltd|Co|Corp|No|Nos|St|Mr|Ms|Dr|e\.g|i\.e|etc|U\.S))$")
_MAIN_CLAUSE = re.compile(r"^(?:[^\s,;:]+\s+){0,7}?(?:shall|will|may|must|can|agrees?|is|are|has|have|hereby|grants?|"
                          r"acknowledges?|represents?|warrants?)\b", re.IGNORECASE)


_PROVISO_TAIL = re.compile(r"^\s*,?\s*(?:however\s*,?\s*)?(?:that\s+)?")


def _clause_end(text: str, start: int) -> int:
    """Index of the next clause break (comma, semicolon, sentence end) at or after `start`, or len(text)."""
    for m in re.finditer(r",(?!\s*\d)|[;:]|\.(?=\s|$)", text[start:]):
        at = start + m.start()
        if m.group(0) == "." and _ABBREVIATION.search(text[:at]):
            continue
        return at
    return len(text)


def _condition_dropped(text: str, rng: random.Random) -> str | None:
    words = len(text.split())
    options: list[tuple[int, int, str]] = []
    for m in _DROPPABLE.finditer(text):
        seg = text[m.start():]
        if _BOILERPLATE.match(seg) or _TRIVIAL.match(seg):
            continue
        before = text[max(0, m.start() - 12):m.start()]
        if re.search(r"(?:\b(?:even|as|not|and|or)|\w{3,}ly)\s*$", before, re.IGNORECASE):
            continue  # "even if", "as if", "expressly excluding": not a droppable condition
        if text[m.end():m.end() + 1] == "," and not m.group(0).lower().startswith("provided"):
            continue  # "except, in each case, ...": the condition is not where the marker says
        if m.group(0).lower() in ("only", "solely"):  # the restriction word alone: "solely for internal use"
            options.append((m.start(), m.end(), ""))
            continue
        tail = _PROVISO_TAIL.match(text[m.end():])
        body = m.end() + (len(tail.group(0)) if tail else 0)
        end, start = _clause_end(text, body), m.start()
        lead = text[:start].rstrip()
        opening = not lead or lead[-1] in ".;:("
        if lead.endswith(","):  # "..., unless X." drops ", unless X"
            start = len(lead) - 1
        elif opening and end < len(text) and text[end] == ",":
            end += 1  # "Except for X, each party shall" drops "Except for X,"
            if not _MAIN_CLAUSE.match(text[end:].lstrip()):
                continue  # the comma did not close the condition (e.g. it was inside a list)
        dropped = text[start:end]
        if re.search(r"\bincluding\s*,?$", dropped, re.IGNORECASE):
            continue  # would split "including, but not limited to"
        if dropped.count("(") != dropped.count(")") or not 2 <= len(dropped.split()) <= 0.5 * words:
            continue
        options.append((start, end, ""))
    edited = _choose(rng, options, text)
    if edited is None:
        return None
    rest = _tidy(edited)
    return rest if len(rest.split()) >= 4 else None


_ADDED_CONDITIONS = (
    ("unless", "unless otherwise agreed in writing by the parties"),
    ("provided", "provided that the other party has given prior written notice"),
    ("subject to", "subject to the prior written approval of the other party"),
    ("except", "except as required by applicable law"),
    ("only", "but only to the extent permitted by applicable law"),
    ("if", "if the other party so requests in writing"),
    ("so long as", "so long as no breach of this Agreement has occurred and is continuing"),
)


def _condition_added(text: str, rng: random.Random) -> str | None:
    if len(text.split()) < 6 or not _MODALS.search(text):
        return None
    fresh = [c for marker, c in _ADDED_CONDITIONS if not re.search(rf"\b{marker}\b", text, re.IGNORECASE)]
    if not fresh:
        return None
    condition = rng.choice(fresh)
    condition = condition.upper() if text.isupper() else condition
    body = text.rstrip()
    end = re.search(r"[.;:]+$", body)
    cut = end.start() if end else len(body)
    return body[:cut].rstrip(" ,") + ", " + condition + (body[cut:] or "")


# --------------------------------------------------------------------------------------------------
# (c) rewrites that keep legal force
# --------------------------------------------------------------------------------------------------

_PLAIN = (
    ("pursuant to", "under"), ("in accordance with", "under"), ("in the event that", "if"),
    ("in the event of", "in case of"), ("prior to", "before"), ("subsequent to", "after"),
    ("hereunder", "under this Agreement"), ("herein", "in this Agreement"), ("hereof", "of this Agreement"),
    ("hereto", "to this Agreement"), ("hereby ", ""), ("with respect to", "regarding"), ("in respect of", "regarding"),
    ("in lieu of", "instead of"), ("forthwith", "immediately"), ("utilize", "use"), ("commence", "begin"),
    ("any and all", "all"), ("each and every", "each"), ("until such time as", "until"), ("in order to", "to"),
    ("by and between", "between"), (", without limitation,", ""), ("including but not limited to", "including"),
    ("not less than", "at least"), ("no less than", "at least"), ("not later than", "no later than"),
)


def _plain_english(text: str, rng: random.Random) -> str | None:
    options = []
    for legalese, plain in _PLAIN:
        pattern = re.escape(legalese).replace(r"\ ", r"\s+")
        for m in re.finditer(rf"(?<![A-Za-z]){pattern}(?![A-Za-z])", text, re.IGNORECASE):
            options.append((m.start(), m.end(), _match_case(m.group(0), plain) if plain else ""))
    edited = _choose(rng, options, text)
    return None if edited is None else re.sub(r"  +", " ", edited)


def _number_words(text: str, rng: random.Random) -> str | None:
    options: list[tuple[int, int, str]] = []
    spelled = _spelled_matches(text)
    for m in spelled:
        figure = (m.group("cur") or "") + m.group("num") + (m.group("pct") or "")
        unit = m.group("unit") or ""
        if "cent" in unit.lower() and not m.group("pct"):
            figure += "%"
        options.append((m.start(), m.end(), figure if "dollar" not in unit.lower() or m.group("cur") else figure
                        + unit))
        options.append((m.start(), m.end(), m.group("words") + unit))
    for m in re.finditer(r"(?<![\d.,$(\[])(?P<num>\d{1,3})(?P<pct>%)?(?![\d.,)\]])", text):
        value = int(m.group("num"))
        if any(a <= m.start() < b for a, b in (s.span() for s in spelled)) or not 0 < value <= 999:
            continue
        if m.group("pct"):
            options.append((m.start(), m.end(), f"{int_to_words(value)} percent ({value}%)"))
        elif _is_duration(text, m.end()):
            options.append((m.start(), m.end(), f"{int_to_words(value)} ({value})"))
    return _choose(rng, options, text)


_MODAL_SYNONYMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"shall\s+not", ("must not", "may not")), (r"must\s+not", ("shall not",)), (r"will\s+not", ("shall not",)),
    (r"may\s+not", ("shall not", "must not")), (r"shall", ("must",)), (r"must", ("shall",)),
    (r"may", ("shall have the right to", "shall be entitled to")), (r"agrees?\s+to(?!\s+(?:not|never)\b)", ("shall",)),
    (r"(?:is|are)\s+required\s+to", ("shall",)),
)


def _modal_synonym(text: str, rng: random.Random) -> str | None:
    options: list[tuple[int, int, str]] = []
    used: set[int] = set()
    for pattern, synonyms in _MODAL_SYNONYMS:
        for m in re.finditer(rf"\b{pattern}\b", text, re.IGNORECASE):
            if m.start() in used:
                continue
            used.add(m.start())
            before, after = text[:m.start()], _squash(text[m.end():m.end() + 120])
            if _HEDGE_BEFORE.search(before) or _negated_context(text, m.start()):
                continue
            word = m.group(0).lower()
            if word in ("shall", "must") and _PERMISSION_AFTER.match(after):
                continue
            if word.endswith("not") and re.match(r"^\s+be\s+(?:obligated|required|liable|prohibited)\b", after):
                continue  # "may not be obligated" also reads as "might not be obligated"
            if word == "may" and (not re.match(r"^\s+[a-z]", after) or re.match(
                    r"^\s+(?:be|have|also|only|from|in|at|not|never|elect)\b", after) or re.search(r"\d\s*$", before)):
                continue
            options.append((m.start(), m.end(), _match_case(m.group(0), rng.choice(synonyms))))
    return _choose(rng, options, text)


_LEADING = re.compile(r"^\s*(?P<label>(?:(?:Section|SECTION|Article|ARTICLE)\s+)?(?:\d+\.(?:\d+\.?)*|[IVX]+\.|"
                      r"\((?:[a-z]|[ivx]{1,4}|\d{1,2})\)|[a-z]\.))\s+(?=\S)")
_SECTION_REF = re.compile(r"\b(?P<word>Sections?|SECTIONS?)\s+(?P<id>\d+(?:\.\d+)*(?:\([a-z0-9]+\))*)")


def _section_numbering(text: str, rng: random.Random) -> str | None:
    options: list[tuple[int, int, str]] = []
    lead = _LEADING.match(text)
    if lead:
        options.append((0, lead.end(), ""))
        number = re.search(r"(\d+)(?=\.?$)", lead.group("label"))
        if number:
            renumbered = lead.group("label")[:number.start()] + str(int(number.group(1)) + 1) + lead.group(
                "label")[number.end():]
            options.append((lead.start("label"), lead.end("label"), renumbered))
    for m in _SECTION_REF.finditer(text):
        symbol = "§§" if m.group("word").lower().endswith("s") else "§"
        options.append((m.start("word"), m.end("word"), rng.choice((symbol, "Sec."))))
    return _choose(rng, options, text)


_FUNCTION_WORDS = {"the", "a", "an", "to", "of", "in", "on", "for", "by", "with", "any", "all", "its", "their",
                   "his", "her", "such", "each", "shall", "may", "will", "must", "is", "are", "be", "not", "no",
                   "from", "that", "which", "who", "under", "this", "these", "those", "other", "as", "at"}
_ADVERBS = {"not", "and", "or", "nor", "after", "before", "during", "upon", "until", "within", "prior", "following",
            "thereafter", "hereafter", "therein", "thereof", "otherwise", "also", "then",
            "now", "thereby", "hereby", "further", "together", "jointly", "severally"}
_QUANTITIES = {*_WORD_VALUES, *_SCALES, "more", "less", "fewer", "greater", "lesser", "most", "least"}
_PREPOSITIONS = {"in", "of", "for", "with", "under", "from", "by", "on", "at", "into"}
_DETERMINERS = {"the", "a", "an", "any", "all", "its", "their", "such", "each", "this", "these", "those", "his", "her"}
_VERB_SLOTS = {"shall", "may", "will", "must", "is", "are", "has", "have", "can", "agrees", "agree"}
_CONJ = re.compile(r"(?:^|(?<=[\s(,]))(?P<a>[A-Za-z]{3,})\s+(?P<conj>and|or)\s+(?P<b>[A-Za-z]{3,})(?=$|[\s,;.):])")


def _reorder(text: str, rng: random.Random) -> str | None:
    if re.search(r"\b(?:respectively|between)\b", text, re.IGNORECASE):
        return None
    options = []
    for m in _CONJ.finditer(text):
        a, b = m.group("a"), m.group("b")
        if a.lower() == b.lower() or {a.lower(), b.lower()} & (_FUNCTION_WORDS | _ADVERBS | _QUANTITIES):
            continue
        if a.lower().endswith("ly") or b.lower().endswith("ly"):
            continue  # an adverb next to a noun: "the parties or automatically"
        before = re.findall(r"[A-Za-z0-9']+|[,;:()\[\]]", text[:m.start()])
        after = re.findall(r"[A-Za-z0-9']+|[,;:.()\[\]]", text[m.end():])
        if before and before[-1].lower() not in _FUNCTION_WORDS and before[-1] not in ",;:(":
            continue
        bare = [w for w in before if w.lower() not in ("the", "a", "an") and w not in "()[]"]
        closed = [w for w in after if w not in "()[]"]
        conjunctions = ("and", "or", "nor")
        if (bare and bare[-1].lower() in conjunctions) or (closed and closed[0].lower() in conjunctions):
            continue  # "A or the B and C": the grouping is unclear
        if after and after[0].lower() not in _FUNCTION_WORDS and after[0] not in ",;:.)":
            continue
        if (before and before[-1].lower() in ("a", "an")) or (after and after[0].lower() == "of"):
            continue  # "an agreement or series of agreements": the second word heads a longer phrase
        if before and after and before[-1].lower() in _PREPOSITIONS and after[0].lower() == "to":
            continue  # "in litigation and agrees to": a noun and the next verb
        if text[m.end():m.end() + 1] == "'" or text[m.end():m.end() + 2] == "/o" or a[0].isupper() != b[0].isupper():
            continue
        if before and after and before[-1].lower() in _VERB_SLOTS and after[0].lower() in _VERB_SLOTS:
            continue  # "X shall earn and Y shall pay": a verb and the next subject, not two conjuncts
        if before and after and before[-1].lower() in _DETERMINERS and after[0].lower() in _DETERMINERS:
            continue  # "take any action or suffer any loss": a noun and the next verb
        options.append((m.start(), m.end(), f"{b} {m.group('conj')} {a}"))
    return _choose(rng, options, text)


def _defined_term_article(text: str, rng: random.Random) -> str | None:
    terms = sorted({m.group(1) for m in re.finditer(r"\b[Tt]he\s+([A-Z][a-z]{2,})\b", text)})
    if not terms:
        return None
    term = rng.choice(terms)
    edited = re.sub(rf"\b[Tt]he\s+({term})\b", r"\1", text)
    return edited if edited != text else None


@dataclass(frozen=True)
class KindSpec:
    family: Family
    kind: str
    expected_mismatch: MismatchType
    edit: Edit


KINDS: tuple[KindSpec, ...] = (
    KindSpec(Family.IDENTICAL, "verbatim", MismatchType.NONE, _verbatim),
    KindSpec(Family.IDENTICAL, "whitespace", MismatchType.NONE, _whitespace),
    KindSpec(Family.IDENTICAL, "case", MismatchType.NONE, _case),
    KindSpec(Family.IDENTICAL, "quotes", MismatchType.NONE, _quotes),
    KindSpec(Family.FORCE_CHANGED, "modality", MismatchType.OBLIGATION, _modality),
    KindSpec(Family.FORCE_CHANGED, "negation_added", MismatchType.OBLIGATION, _negation_added),
    KindSpec(Family.FORCE_CHANGED, "negation_dropped", MismatchType.OBLIGATION, _negation_dropped),
    KindSpec(Family.FORCE_CHANGED, "amount", MismatchType.NUMERIC, _amount),
    KindSpec(Family.FORCE_CHANGED, "duration", MismatchType.TEMPORAL, _duration),
    KindSpec(Family.FORCE_CHANGED, "date", MismatchType.TEMPORAL, _date),
    KindSpec(Family.FORCE_CHANGED, "before_after", MismatchType.TEMPORAL, _before_after),
    KindSpec(Family.FORCE_CHANGED, "all_some", MismatchType.SCOPE, _all_some),
    KindSpec(Family.FORCE_CHANGED, "party_swap", MismatchType.OTHER, _party_swap),
    KindSpec(Family.FORCE_CHANGED, "condition_dropped", MismatchType.MISSING_CONDITION, _condition_dropped),
    KindSpec(Family.FORCE_CHANGED, "condition_added", MismatchType.EXTRA_CONDITION, _condition_added),
    KindSpec(Family.FORCE_KEPT, "plain_english", MismatchType.NONE, _plain_english),
    KindSpec(Family.FORCE_KEPT, "number_words", MismatchType.NONE, _number_words),
    KindSpec(Family.FORCE_KEPT, "modal_synonym", MismatchType.NONE, _modal_synonym),
    KindSpec(Family.FORCE_KEPT, "section_numbering", MismatchType.NONE, _section_numbering),
    KindSpec(Family.FORCE_KEPT, "reorder", MismatchType.NONE, _reorder),
    KindSpec(Family.FORCE_KEPT, "defined_term_article", MismatchType.NONE, _defined_term_article),
)
KIND_NAMES = tuple(k.kind for k in KINDS)


def kind_spec(kind: str) -> KindSpec:
    return next(k for k in KINDS if k.kind == kind)


def edit_span(kind: str, span: str, rng: random.Random) -> str | None:
    """Apply one kind of edit to a span; None when it does not apply (or would change nothing)."""
    edited = kind_spec(kind).edit(span, rng)
    if edited is None or (kind != "verbatim" and edited == span):
        return None
    return edited
