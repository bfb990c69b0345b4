"""The legal-text lexicon shared by offline models and judges: tokens, numbers, dates, modality, conditions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

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


# ---------------------------------------------------------------------------------------------------
# Canonical terms: the words a judge compares once wording without legal force is set aside.
#
# Two texts that differ only in formatting, quotes, cross-reference numbering, number words versus
# numerals ("thirty (30)" / "30"), legalese versus plain English ("prior to" / "before"), articles,
# the order of two coordinated words ("A and B" / "B and A") or a modal synonym of the same force
# ("shall" / "must", "may not" / "shall not") map to the same keys. Whatever changes force (amounts,
# dates, durations, modality class, polarity, conditions, quantifiers, parties) survives as a
# difference between the key sequences.
# ---------------------------------------------------------------------------------------------------

OBLIGATION = "[obligation]"
PERMISSION = "[permission]"
PROHIBITION = "[prohibition]"
NO_OBLIGATION = "[no-obligation]"
FORCE_CLASSES = (OBLIGATION, PERMISSION, PROHIBITION, NO_OBLIGATION)


@dataclass(frozen=True)
class Term:
    """One unit of canonical text: `key` is what judges compare, `surface` the words it came from."""

    key: str
    surface: str
    clause: int = 0  # index of the clause (text between , ; : .) the term stands in

    @property
    def is_number(self) -> bool:
        return _NUMERIC_KEY.fullmatch(self.key) is not None


_NUMERIC_KEY = re.compile(r"\$?\d+(?:\.\d+)?%?")
_UNIT_WORDS = {w: v for w, v in NUMBER_WORDS.items() if w not in ("half", "hundred")}
_SCALE_WORDS = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
DURATION_UNITS = {"day", "days", "week", "weeks", "month", "months", "year", "years", "quarter", "quarters",
                  "hour", "hours", "anniversary", "anniversaries"}
_DURATION_QUALIFIERS = {"business", "calendar", "consecutive", "full", "working", "banking"}

# Phrases with one meaning and several wordings; the right-hand side is the canonical form.
_EQUIVALENTS: dict[str, str] = {
    # plain English for legalese
    "pursuant to": "under", "in accordance with": "under", "in compliance with": "under",
    "prior to": "before", "in advance of": "before", "previous to": "before",
    "subsequent to": "after",
    "in the event that": "if", "in the event of": "if", "in the event": "if", "in case of": "if", "in case": "if",
    "hereby": "", "hereinafter": "",
    "with respect to": "regarding", "in respect of": "regarding", "with regard to": "regarding",
    "in relation to": "regarding", "concerning": "regarding",
    "in lieu of": "instead of", "forthwith": "immediately", "without delay": "immediately",
    "utilize": "use", "utilise": "use", "utilizes": "uses", "utilises": "uses", "utilized": "used",
    "utilised": "used", "utilizing": "using", "utilising": "using", "utilization": "use",
    "commence": "begin", "commences": "begins", "commenced": "began", "commencing": "beginning",
    "any and all": "all", "each and every": "each", "all and any": "all",
    "until such time as": "until", "at such time as": "when", "for the duration of": "during",
    "during the course of": "during", "in order to": "to", "for the purpose of": "for",
    "for the purposes of": "for", "by and between": "between", "null and void": "void",
    "including without limitation": "including", "including but not limited to": "including",
    "including but without limitation": "including", "without limitation": "", "but not limited to": "",
    "not less than": "at least", "no less than": "at least", "a minimum of": "at least",
    "not fewer than": "at least", "no fewer than": "at least",
    "not more than": "at most", "no more than": "at most", "not to exceed": "at most", "up to": "at most",
    "a maximum of": "at most", "not in excess of": "at most", "in excess of": "more than",
    "greater than": "more than", "no later than": "by", "not later than": "by",
    "despite": "notwithstanding", "neither": "no", "refrain from": "not",
    # modal wording, by legal force
    "shall not": PROHIBITION, "must not": PROHIBITION, "may not": PROHIBITION, "will not": PROHIBITION,
    "cannot": PROHIBITION, "can not": PROHIBITION, "shall never": PROHIBITION, "will never": PROHIBITION,
    "shall in no event": PROHIBITION, "will in no event": PROHIBITION,
    "is not permitted to": PROHIBITION, "are not permitted to": PROHIBITION,
    "shall not be permitted to": PROHIBITION, "is prohibited from": PROHIBITION,
    "are prohibited from": PROHIBITION, "shall be prohibited from": PROHIBITION,
    "is not allowed to": PROHIBITION, "are not allowed to": PROHIBITION,
    "shall not be prohibited from": PERMISSION, "is not prohibited from": PERMISSION,
    "are not prohibited from": PERMISSION, "will not be prohibited from": PERMISSION,
    "agrees not to": PROHIBITION, "agree not to": PROHIBITION, "undertakes not to": PROHIBITION,
    "covenants not to": PROHIBITION, "covenant not to": PROHIBITION,
    "shall refrain from": PROHIBITION, "will refrain from": PROHIBITION, "must refrain from": PROHIBITION,
    "is not entitled to": PROHIBITION, "are not entitled to": PROHIBITION,
    "shall not be entitled to": PROHIBITION, "shall not have the right to": PROHIBITION,
    "does not have the right to": PROHIBITION, "has no right to": PROHIBITION,
    "shall not be required to": NO_OBLIGATION, "will not be required to": NO_OBLIGATION,
    "is not required to": NO_OBLIGATION, "are not required to": NO_OBLIGATION, "need not": NO_OBLIGATION,
    "shall not be obligated to": NO_OBLIGATION, "is not obligated to": NO_OBLIGATION,
    "shall have no obligation to": NO_OBLIGATION, "will have no obligation to": NO_OBLIGATION,
    "has no obligation to": NO_OBLIGATION, "shall be under no obligation to": NO_OBLIGATION,
    "shall": OBLIGATION, "must": OBLIGATION, "will": OBLIGATION, "agrees to": OBLIGATION,
    "agree to": OBLIGATION, "is required to": OBLIGATION, "are required to": OBLIGATION,
    "shall be required to": OBLIGATION, "will be required to": OBLIGATION, "is obligated to": OBLIGATION,
    "are obligated to": OBLIGATION, "shall be obligated to": OBLIGATION, "is obliged to": OBLIGATION,
    "undertakes to": OBLIGATION, "undertake to": OBLIGATION, "covenants to": OBLIGATION,
    "covenants and agrees to": OBLIGATION, "agrees and covenants to": OBLIGATION,
    "shall have the obligation to": OBLIGATION,
    "may": PERMISSION, "can": PERMISSION, "is permitted to": PERMISSION, "are permitted to": PERMISSION,
    "shall be permitted to": PERMISSION, "will be permitted to": PERMISSION, "is entitled to": PERMISSION,
    "are entitled to": PERMISSION, "shall be entitled to": PERMISSION, "will be entitled to": PERMISSION,
    "shall be entitled": PERMISSION, "is entitled": PERMISSION,
    "has the right to": PERMISSION, "have the right to": PERMISSION, "shall have the right to": PERMISSION,
    "will have the right to": PERMISSION, "shall have the right": PERMISSION, "has the right": PERMISSION,
    "is allowed to": PERMISSION, "are allowed to": PERMISSION, "shall be allowed to": PERMISSION,
    "has the option to": PERMISSION, "shall have the option to": PERMISSION, "is free to": PERMISSION,
    "shall be free to": PERMISSION, "is authorized to": PERMISSION, "shall be authorized to": PERMISSION,
    "reserves the right to": PERMISSION,
}
_EXPANSIONS = {"hereunder": "under this agreement", "herein": "in this agreement", "hereof": "of this agreement",
               "hereto": "to this agreement", "herewith": "with this agreement"}
_PHRASES: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
for _source, _target in sorted(_EQUIVALENTS.items(), key=lambda kv: -len(kv[0].split())):
    _words = tuple(_source.split())
    _PHRASES.setdefault(_words[0], []).append((_words, tuple(_target.split()) if _target else ()))

# A modal under one of these in the same clause states a prohibition ("no party shall", "nor may").
NEGATORS = {"no", "nor", "nothing", "none", "never"}
ARTICLES = {"the", "a", "an"}
ORDER_BEFORE = {"before", "preceding", "earlier", "previously", "theretofore"}
ORDER_AFTER = {"after", "following", "later", "subsequently", "thereafter"}
UNIVERSAL = {"all", "every", "each", "any", "entire", "whole", "always"}
PARTIAL = {"some", "certain", "part", "portion", "partial", "several", "particular", "sometimes"}
# Condition markers in canonical form (equivalences applied, articles dropped).
CONDITION_KEYS = (
    "except", "unless", "provided", "subject to", "notwithstanding", "excluding", "other than", "only", "solely",
    "if", "to extent", "in no event", "at most", "at least", "within", "limited to", "conditioned",
    "contingent", "whichever", "save that", "as long as", "so long as", "upon", "without",
    "after first",
)
_CONDITION_RE = [(m, re.compile(rf"(?<![a-z]){re.escape(m)}(?![a-z])")) for m in CONDITION_KEYS]

_REF_ID = r"(?:\d+(?:\.\d+)*[a-z]?(?:\s?\([a-z0-9]{1,4}\))*|[ivxlc]{1,6}\b|[a-z]\b)"
_CROSS_REF = re.compile(
    r"(?:\b(?:sections?|subsections?|articles?|exhibits?|schedules?|clauses?|paragraphs?|annex(?:es)?|appendix|"
    rf"appendices)\b|\bsec\.|\bart\.|\bpara\.|§+)\s*{_REF_ID}"
    r"(?:\s*(?:,|and|or|through|to|-)\s*\d+(?:\.\d+)*[a-z]?(?:\s?\([a-z0-9]{1,4}\))*)*", re.IGNORECASE)
_LEADING_ENUMERATOR = re.compile(
    r"^\s*(?:\d+(?:\.\d+)+\.?|\d+\.|[ivxlc]{1,6}\.|[a-z]\.|\((?:\d{1,3}|[a-z]|[ivxlc]{1,6})\))(?=\s)", re.IGNORECASE)
_RAW_TOKEN = re.compile(
    r"(?P<paren>\(\s*(?:US\$|USD\s?|\$)?\s?\d+(?:,\d{3})*(?:\.\d+)?\s?%?\s*\)(?:\s?%)?)"
    r"|(?P<enum>\((?:[a-z]|[ivxlc]{1,6})\))"
    r"|(?P<num>\$?\s?\d+(?:,\d{3})*(?:\.\d+)?(?:\s?%)?)"
    r"|(?P<word>[a-z]+(?:\d+[a-z]*)*(?:'[a-z]+)?)"
    r"|(?P<stop>[,;:!?]|\.(?!(?-i:\s*[a-z0-9])))", re.IGNORECASE)
_US = re.compile(r"\bU\.S\.(?:A\.)?", re.IGNORECASE)
_CANONICAL_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "′": "'", "`": "'", "“": '"', "”": '"', "„": '"',
                                   "″": '"', "–": "-", "—": "-", "\u00a0": " "})


def _number_key(value: float, percent: bool = False, money: bool = False) -> str:
    """The key of a figure: its value, with "$" for an amount of money and "%" for a percentage."""
    text = str(int(value)) if value == int(value) else f"{value:g}"
    return ("$" if money else "") + text + ("%" if percent else "")


def _value(key: str) -> float:
    return float(key.strip("$%"))


@dataclass
class _Raw:
    key: str
    surface: str
    clause: int
    numeric: bool = False
    spelled: bool = False  # written in words or in parentheses: a restatement of an adjacent figure


def _raw_terms(text: str) -> list[_Raw]:
    # A cross-reference is dropped but still separates what stood on either side of it.
    text = _US.sub("US", _LEADING_ENUMERATOR.sub(" ", _CROSS_REF.sub(" ; ", text.translate(_CANONICAL_QUOTES))))
    raws: list[_Raw] = []
    clause = 0
    for m in _RAW_TOKEN.finditer(text):
        kind, surface = m.lastgroup, m.group(0)
        if kind == "stop":
            clause += 1
        elif kind == "enum":
            continue
        elif kind in ("num", "paren"):
            digits = re.sub(r"[^\d.]", "", surface)
            if not digits or digits == ".":
                continue
            money = "$" in surface or "usd" in surface.lower()
            raws.append(_Raw(_number_key(float(digits), "%" in surface, money), surface.strip("() "), clause, True,
                             kind == "paren"))
        else:
            raws.append(_Raw(surface.lower(), surface, clause))
    return raws


def _emit(out: list[_Raw], r: _Raw) -> None:
    """Append a term; a figure restated in words or parentheses next to itself ("thirty (30)") is kept once."""
    prev = out[-1] if out else None
    if (r.numeric and prev is not None and prev.numeric and prev.clause == r.clause
            and _value(prev.key) == _value(r.key) and (r.spelled or prev.spelled)):
        both = prev.key + r.key
        prev.key = _number_key(_value(prev.key), "%" in both, "$" in both)
        prev.surface += f" ({r.surface})" if r.spelled else " " + r.surface
        prev.spelled = False
        return
    out.append(r)


def _spell_numbers(raws: list[_Raw]) -> list[_Raw]:
    """Number words become figures; 'percent', currency words and ordinal suffixes attach to them."""
    out: list[_Raw] = []
    i = 0
    while i < len(raws):
        r = raws[i]
        prev = out[-1] if out else None
        if r.key in _SCALE_WORDS and prev is not None and prev.numeric and prev.clause == r.clause:
            prev.key = _number_key(_value(prev.key) * _SCALE_WORDS[r.key], "%" in prev.key, "$" in prev.key)
            prev.surface += " " + r.surface
            i += 1
            continue
        if r.key in _UNIT_WORDS or r.key in _SCALE_WORDS:
            total = current = 0.0
            j = i
            while j < len(raws) and raws[j].clause == r.clause:
                w = raws[j].key
                if w in _UNIT_WORDS and j > i and raws[j - 1].key in _UNIT_WORDS and not (
                        _UNIT_WORDS[raws[j - 1].key] % 10 == 0 and _UNIT_WORDS[raws[j - 1].key] >= 20
                        and _UNIT_WORDS[w] < 10):
                    break  # "one twelve-month period" is two numbers; "twenty four" is one
                if w in _UNIT_WORDS:
                    current += _UNIT_WORDS[w]
                elif w == "hundred":
                    current = max(current, 1) * 100
                elif w in _SCALE_WORDS:
                    total += max(current, 1) * _SCALE_WORDS[w]
                    current = 0
                elif not (w == "and" and j > i and raws[j - 1].key in _SCALE_WORDS and j + 1 < len(raws)
                          and raws[j + 1].key in _UNIT_WORDS):
                    break
                j += 1
            surface = " ".join(x.surface for x in raws[i:j])
            _emit(out, _Raw(_number_key(total + current), surface, r.clause, True, True))
            i = j
            continue
        prev = out[-1] if out else None
        if prev is not None and prev.numeric and prev.clause == r.clause:
            if r.key in ("percent", "percentum") or (r.key == "per" and i + 1 < len(raws)
                                                     and raws[i + 1].key == "cent"):
                prev.key = _number_key(_value(prev.key), True, "$" in prev.key)
                prev.surface += " " + r.surface
                i += 2 if r.key == "per" else 1
                continue
            if r.key in ("st", "nd", "rd", "th"):
                prev.surface += r.surface
                i += 1
                continue
            currency = 2 if [x.key for x in raws[i:i + 2]] == ["us", "dollars"] else int(
                r.key in ("dollars", "dollar", "usd"))
            if currency:
                prev.key = _number_key(_value(prev.key), "%" in prev.key, True)
                prev.surface += " " + " ".join(x.surface for x in raws[i:i + currency])
                i += currency
                continue
        if r.key in ("usd", "us") and i + 1 < len(raws) and raws[i + 1].numeric:
            i += 1
            continue
        _emit(out, r)
        i += 1
    return out


_BEFORE_MONTH = {"of", "in", "during", "until", "since", "from", "through", "before", "after", "mid", "early", "late"}
_AFTER_MONTH = {"and", "or", "of", "to", "through", "until", "each", "every"}


def _is_month(raws: list[_Raw], i: int) -> bool:
    """Whether "may" at `i` names the month: before a day or year ("May 2, 2024"), next to another
    month, or after a day or a preposition when no verb follows ("1 May", "in May of each year"; but
    "in 5.1 may become")."""
    following = raws[i + 1] if i + 1 < len(raws) else None
    previous = raws[i - 1] if i > 0 else None
    if following is not None and following.numeric and following.clause == raws[i].clause:
        return True
    if any(x.key in MONTHS and x.key != "may" for x in (previous, following) if x is not None):
        return True  # "February, May, August"
    after_ok = following is None or following.clause != raws[i].clause or following.key in _AFTER_MONTH
    return after_ok and previous is not None and (previous.numeric or previous.key in _BEFORE_MONTH)


def _expand(raws: list[_Raw]) -> list[_Raw]:
    """Spell out one-word legalese first ("pursuant hereto" = "pursuant to this agreement")."""
    out: list[_Raw] = []
    for r in raws:
        target = _EXPANSIONS.get(r.key)
        if target is None:
            out.append(r)
        else:
            out.extend(_Raw(word, r.surface, r.clause) for word in target.split())
    return out


_PHRASE_ADVERBS = {"only", "also", "further", "then", "thereafter", "still", "immediately", "promptly", "each"}


def _apply_equivalents(raws: list[_Raw]) -> list[Term]:
    terms: list[Term] = []
    i = 0
    while i < len(raws):
        r = raws[i]
        match: tuple[int, tuple[str, ...]] | None = None
        inserted: _Raw | None = None
        window = raws[i:i + 8]
        for words, target in _PHRASES.get(r.key, ()):
            n = len(words)
            if tuple(x.key for x in window[:n]) == words:
                match = n, target
                break
        if len(window) > 2 and window[1].key in _PHRASE_ADVERBS:
            # "shall only be allowed to" reads as "shall be allowed to" + "only"
            rest = [window[0], *window[2:]]
            for words, target in _PHRASES.get(r.key, ()):
                n = len(words)
                if n > 1 and tuple(x.key for x in rest[:n]) == words and (match is None or n + 1 > match[0]):
                    match, inserted = (n + 1, target), window[1]
                    break
        if match and r.key == "may" and _is_month(raws, i):
            match = None  # "May 2, 2024": the month, not the modal
        if match is None:
            terms.append(Term(r.key, r.surface, r.clause))
            i += 1
            continue
        n, target = match
        surface = " ".join(x.surface for x in raws[i:i + n])
        terms.extend(Term(key, surface, r.clause) for key in target)
        if inserted is not None:
            terms.append(Term(inserted.key, inserted.surface, inserted.clause))
        if not target and terms:  # a dropped phrase keeps its words visible in the reasons
            last = terms[-1]
            terms[-1] = Term(last.key, f"{last.surface} {surface}", last.clause)
        i += n
    return terms


def _is_plain_word(key: str) -> bool:
    function_word = key in STOPWORDS and key not in ("agreement", "party", "parties")
    return (key.isalpha() and len(key) > 2 and not function_word and key not in NEGATIONS and key not in NEGATORS
            and key not in ORDER_BEFORE | ORDER_AFTER | UNIVERSAL | PARTIAL)


def canonical_terms(text: str) -> list[Term]:
    """The canonical terms of a text (see the section comment above)."""
    return list(_canonical_terms(text))


# A judge compares the same gold spans and quotes again and again (each model, run and re-judging of a
# contract): their terms are worked out once per process. Terms are frozen; each caller gets its own list.
@lru_cache(maxsize=16384)
def _canonical_terms(text: str) -> tuple[Term, ...]:
    terms = _apply_equivalents(_expand(_spell_numbers(_raw_terms(text))))
    # A modal followed by a negation ("agrees to refrain from") or under a negator of its clause
    # ("no party shall", "nor may it") is a prohibition.
    for i in range(len(terms) - 1, 0, -1):
        if terms[i].key == "not" and terms[i - 1].key in (OBLIGATION, PERMISSION):
            terms[i - 1] = Term(PROHIBITION, f"{terms[i - 1].surface} {terms[i].surface}", terms[i - 1].clause)
            del terms[i]
    for i, t in enumerate(terms):
        if t.key in (OBLIGATION, PERMISSION) and any(
                p.key in NEGATORS and p.clause == t.clause for p in terms[max(0, i - 4): i]):
            terms[i] = Term(PROHIBITION, t.surface, t.clause)
    terms = [t for t in terms if t.key not in ARTICLES]
    # "A and B" and "B and A" state the same thing when A and B are single plain words and the pair
    # stands alone (in "A or B and C" the grouping is unclear, so nothing is reordered).
    conjunctions = ("and", "or", "nor")
    for i in range(1, len(terms) - 1):
        a, conj, b = terms[i - 1], terms[i], terms[i + 1]
        alone = (i < 2 or terms[i - 2].key not in conjunctions or terms[i - 2].clause != a.clause) and (
            i + 2 >= len(terms) or terms[i + 2].key not in conjunctions or terms[i + 2].clause != b.clause) and (
            i < 2 or not terms[i - 2].is_number or terms[i - 2].clause != a.clause) and (
            i + 2 >= len(terms) or not terms[i + 2].is_number or terms[i + 2].clause != b.clause
        ) and a.clause == conj.clause == b.clause  # "for 1-3 years or terminate": a unit stays with its figure
        if conj.key in ("and", "or") and alone and _is_plain_word(a.key) and _is_plain_word(b.key) and a.key > b.key:
            terms[i - 1], terms[i + 1] = b, a
    return tuple(terms)


def canonical_keys(text: str) -> list[str]:
    return [t.key for t in canonical_terms(text)]


def condition_keys(keys: list[str]) -> list[str]:
    """The canonical condition markers among `keys`."""
    padded = " ".join(keys)
    return [m for m, pattern in _CONDITION_RE if pattern.search(padded)]


def force_classes(keys: list[str]) -> set[str]:
    return {k for k in keys if k in FORCE_CLASSES}


def polarity(keys: list[str]) -> int:
    """Negative statements among `keys`: negation words plus prohibitions and lifted obligations."""
    return sum(k in NEGATIONS or k in NEGATORS or k in (PROHIBITION, NO_OBLIGATION) for k in keys)


def is_temporal_number(keys: list[str], i: int) -> bool:
    """True when the figure at `i` counts time (a duration) or is part of a date."""
    key = keys[i]
    if key.endswith("%") or key.startswith("$"):
        return False
    after = keys[i + 1: i + 5]
    while after and after[0] in _DURATION_QUALIFIERS:
        after = after[1:]
    if after and after[0].removesuffix("'s") in DURATION_UNITS:
        return True
    # A day or year stands next to its month ("March 4, 2024", "4 March", "the 4th of March").
    near = keys[max(0, i - 2): i + 2] + (keys[i + 2: i + 3] if keys[i + 1: i + 2] == ["of"] else [])
    if any(k in MONTHS for k in near):
        return True
    window = keys[max(0, i - 3): i + 4]
    value = _value(key)
    return value == int(value) and 1900 <= value <= 2100 and any(
        k in ("day", "dated", "year", "fiscal", "calendar") for k in window)
