"""Read a contract's structure: its regions and numbered sections, its definitions and how defined terms are
used, its cross-references and its parties.

Both the injector (what can be changed, where, and what the gold says) and the rule-based scrubber (what
looks wrong) read contracts through this module, and the `defined_terms` gold is derived by it: that
category is reported as derived by this parser, never as lawyer-annotated.

**Regions and locations.** A location is written as a lawyer cites it: a section number as the contract
numbers it (`8.2`, `8.2(a)`, `Article IV`), or one of the labels `P` (preamble), `R` (recitals),
`Signature Block`, `Exhibit A` / `Schedule 2` / `Annex B` / `Appendix 1` / `Attachment C`.

- preamble (`P`): from the beginning of the text to the first numbered section, recitals aside;
- recitals (`R`): from a line beginning `WHEREAS`, `RECITALS` or `BACKGROUND` to the line with `NOW, THEREFORE`
  or `agree as follows`;
- body: from the first numbered section, located by the deepest numbered section around the offset;
- signature block (`Signature Block`): from the last `IN WITNESS WHEREOF` after the first section;
- exhibits (`Exhibit X`, as the heading names it): from a short line beginning `EXHIBIT X`, `SCHEDULE X`,
  `ANNEX X`, `APPENDIX X` or `ATTACHMENT X` after the first section.

**Sections.** A section starts at the beginning of a line with `Section 8.2`, `ARTICLE IV` / `Article 4`,
`8.2`, `8.` or `8 HEADING`; a lettered paragraph starts a line with `(a)` inside a numbered section
(labelled `8.2(a)`). A number is accepted only in sequence (a top-level number at most three past the
last one, a dotted number under the current or next top-level number, never twice), which keeps out
tables of contents, page numbers and numbered lists. Numbering stops at the first exhibit.

**Definitions.** A term is a quoted phrase of one to eight words starting with a capital letter or a
digit, in straight or curly quotes, defined in one of four ways:

- *means*: the quoted term followed by `means`, `mean`, `shall mean`, `has/shall have the meaning`, `refers to`,
  `shall refer to`, `is/shall be defined as`, `includes` or `shall include`; another quoted term joined to it by
  `or`/`and` just before is defined too (`"Software" means the RouteWise platform`);
- *parenthetical*: one or more quoted terms inside parentheses, after at most 60 characters of lead-in without
  quotes or parentheses (`the`, `each, a`, `collectively, the`, `hereinafter referred to as`), the lead-in not
  saying `as defined` or `defined in` (`Harbor Peak Software, Inc. ("Licensor")`).

- *numbered item*: a numbered section opening with a quoted term (after a heading repeating it), whatever follows
  (`1.1"Affiliates" of a Party shall mean`, `1.8 "Initial Term" is defined in Section 9.1`), and the quoted terms
  joined to it (`"Sale", "Sells" or "Sold"`);
- *referred to as*: `hereinafter referred to as "CUTANEA"`, `shall hereinafter be individually referred to as a
  "Party" and collectively as the "Parties"` (near the preamble, no parenthesis needed).

A definition's *body* is what it defines the term as: after the verb to the end of the sentence or list item
(means), or the clause before the parenthesis (parenthetical). Its location is the location of its opening
quote. Unquoted definitions (bold or underlined in the original, lost in plain text) are not recognised.

**Usages.** A usage of a defined term is an exact, case-sensitive, whole-word occurrence of the term or its
plural (`s`, `es`, or the singular of a term ending in `s`) outside its own quotes; a longer defined
term wins over a shorter one it contains (`Confidential Information` is not a usage of `Information`).
A lowercase occurrence is the same match on the lower-cased term.

**Parties.** A party is a term defined in the preamble (or in the first 3,000 characters) whose definition
names an entity (`Inc`, `LLC`, `Ltd`, `corporation`, `GmbH`, ...) or which is a role word (`Licensor`,
`Distributor`, ...), excluding `Agreement`, `Party` and dates, and used at least three times.

A party's names are grouped: two terms defined one after the other with only `and/or`, `or` or parentheses between
them (`("Ferrer" and/or "Supplier")`, `("Ferrer")("Supplier")`) name one entity (`Party.entity`); the CUAD
annotations refine this (`parties`).

**Cross-references.** `Section 8.2`, `Sections 8.2 and 9.1`, `section 8.2(a)`, `Article IV`, `Paragraph 3`,
`Clause 4.1`, `§ 8.2`, resolved to the section with that number (a lettered paragraph falls back to its
section). A reference followed by `of the ...` (not `of this Agreement`) cites another instrument (a
statute, another agreement) and is not internal.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Literal

from lhl_platform.scrub.style import sentence_bounds
from lhl_platform.scrub.vocabulary import AGREEMENT_CONTRAST, CONTRAST_WORDS, HEAD_NOUNS, OTHER_WORDS

# --- regions ----------------------------------------------------------------------------------------------

_RECITALS_START = re.compile(r"^[ \t]*(?:WHEREAS\b|W\s?H\s?E\s?R\s?E\s?A\s?S\b|RECITALS?\b|Recitals?\s*$|BACKGROUND\b)",
                             re.MULTILINE)
_RECITALS_END = re.compile(r"NOW,?\s+THEREFORE|Now,?\s+therefore|agree\s+as\s+follows", re.IGNORECASE)
_SIGNATURE = re.compile(r"IN\s+WITNESS\s+WHEREOF|In\s+Witness\s+Whereof", re.IGNORECASE)
_EXHIBIT = re.compile(r"^[ \t]*(EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix|ATTACHMENT|Attachment)"
                      r"[ \t]+([A-Z]{1,2}|\d{1,2}(?:\.\d{1,2})?|[IVX]{1,4})\b[^\n]{0,70}$", re.MULTILINE)

# --- sections ---------------------------------------------------------------------------------------------

_SECTION_LINE = re.compile(
    r"^[ \t]*(?:"
    r"(?P<art>ARTICLE|Article)[ \t]+(?P<artno>[IVXLC]{1,6}|\d{1,2})\b\.?"
    r"|(?:SECTION|Section|Sec\.)[ \t]+(?P<secno>\d{1,2}(?:\.\d{1,3}){0,3})\b\.?"
    r"|(?P<num>\d{1,2}(?:\.\d{1,3}){1,3})\.?(?=\s+\S|[\"“][A-Z])"
    r"|(?P<top>\d{1,2})\.(?=\s+\S)"
    r"|(?P<bare>\d{1,2})(?=[ \t]+[A-Z][A-Z]{2})"
    r"|\((?P<para>[a-z])\)(?=[ \t]+\S)"
    r")",
    re.MULTILINE)
# Text extracted from PDFs often runs paragraphs together on one line. A number there starts a section only
# when it is exactly the next number in sequence, is followed by a capital or a quote, and does not follow a
# word that makes it a reference ("Section 2.1", "and 2.1").
_SECTION_INLINE = re.compile(
    r"(?<=[ \t])(?:"
    r"(?P<art>ARTICLE)[ \t]+(?P<artno>[IVXLC]{1,6}|\d{1,2})\b"
    r"|(?:SECTION|Section)[ \t]+(?P<secno>\d{1,2})(?=[ \t]+[A-Z][a-z])"
    r"|(?P<num>\d{1,2}(?:\.\d{1,3}){1,3})\.?(?=[ \t]+[\"“A-Z(]|[\"“][A-Z])"
    r"|(?P<top>\d{1,2})\.(?=[ \t]+[\"“A-Z])"
    r"|\((?P<para>[a-z])\)(?=[ \t]+\S)"
    r")")
_REFERRING_WORD = re.compile(r"(?:\b(?:Sections?|SECTIONS?|sections?|Articles?|ARTICLES?|articles?|Paragraphs?|"
                             r"paragraphs?|Clauses?|clauses?|and|or|to|through|of|in|under|with|than|hereof|No\.)"
                             r"|[§,\d$%(])\s*$")
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


def roman_value(numeral: str) -> int | None:
    """The value of a Roman numeral (`IV` -> 4), or None when it is not one."""
    if not numeral or any(c not in _ROMAN for c in numeral.upper()):
        return None
    total = 0
    values = [_ROMAN[c] for c in numeral.upper()]
    for i, v in enumerate(values):
        total += -v if i + 1 < len(values) and values[i + 1] > v else v
    return total


@dataclass(frozen=True)
class Section:
    label: str  # as the contract numbers it: "8", "8.2", "8.2(a)", "Article IV"
    number: str  # what references name: "8", "8.2", "8.2(a)"; an article by its arabic value ("4")
    start: int
    end: int
    depth: int  # 0 for a top-level section or article, one more per dotted level or lettered paragraph
    heading: str  # the rest of its first line (up to 120 characters)


# --- definitions ------------------------------------------------------------------------------------------

_OPEN, _CLOSE = "\"“", "\"”"
_TERM = r"[A-Z0-9][^\"“”\n]{0,78}?"
_QUOTED = rf"[{_OPEN}](?P<term>{_TERM})[,.]?[{_CLOSE}]"
_MEANS_VERB = re.compile(
    r"\s*(?:\)\s*)?,?\s*(?:\([^()]{0,200}\)\s*,?\s*)?(?:of\s+(?:a|an|any|each|either|the)\s+[A-Za-z]+\s+)?"
    r"(?P<verb>shall\s+have\s+the\s+meanings?|has\s+the\s+meanings?|shall\s+mean|means|mean|"
    r"shall\s+refer\s+to|refers\s+to|shall\s+be\s+defined\s+as|is\s+defined\s+as|shall\s+include|includes)\b")
_QUOTED_TERM = re.compile(_QUOTED)
_PAREN_LEAD = re.compile(r"\((?P<lead>[^()\"“”]{0,60}?)(?=[\"“])")
_PAREN_REST = re.compile(r"[^()]{0,120}?\)")
_NOT_A_DEFINITION = re.compile(r"as\s+defined|defined\s+in|within\s+the\s+meaning|see\b|cf\.", re.IGNORECASE)
DefinitionStyle = Literal["means", "parenthetical"]
# A numbered item that opens with a quoted term (after an optional heading repeating it) defines that term, whatever
# verb follows ("shall mean", "will mean", "is defined in Section 11.8", "with respect to X means").
_LEADING_TERM = re.compile(r"[ \t]*(?:(?:Section|SECTION)[ \t]+)?\d{1,2}(?:\.\d{1,3}){1,3}\.?[ \t]*"
                           r"(?P<heading>(?:[A-Z][\w\-/]*[ \t]+){0,6}?)" + _QUOTED)
# More quoted terms joined to the first: `"Sale", "Sells" or "Sold"`, `"Party" and collectively as the "Parties"`.
_QUOTED_CHAIN = re.compile(r"(?:\s*(?:,|or|and|and/or)?\s*(?:,\s*)?(?:or|and)?\s*(?:(?:collectively|together|"
                           r"individually)\s+)?(?:(?:referred\s+to\s+)?as\s+)?(?:(?:a|an|the)\s+)?" + _QUOTED.replace(
                               "(?P<term>", "(?:") + ")+")
# A definition without parentheses: `hereinafter referred to as "CUTANEA"`, `referred to as a "Party"`.
_REFERRED_AS = re.compile(r"\b(?:hereinafter|hereafter|herein)?(?:[ \t]+(?:be|are|is|individually|collectively|"
                          r"indistinctly|jointly|together|each))*[ \t]+(?:referred[ \t]+to|called|known|designated)"
                          r"[ \t]+(?:(?:herein|hereinafter|individually|collectively|together)[ \t]+)*as[ \t]+"
                          r"(?:(?:a|an|the)[ \t]+)?(?P<first>[\"“])")


def _heading_fits(heading: str, term: str) -> bool:
    """A heading before the quoted term is only the term repeated (`1.1 Act "Act" means`)."""
    words = " ".join(heading.split()).rstrip(".:")
    return not words or words.lower() == " ".join(term.split()).lower()


@dataclass(frozen=True)
class Definition:
    term: str
    start: int  # the term's first character (inside the quotes)
    end: int
    style: DefinitionStyle
    body: str
    body_start: int
    body_end: int
    location: str

    @property
    def quote_span(self) -> tuple[int, int]:
        return self.start - 1, self.end + 1


@dataclass(frozen=True)
class Reference:
    """An internal cross-reference: the number as written and the section it resolves to (if any)."""

    word: str  # "Section", "Sections", "Article", "paragraph", "§"
    label: str  # as written: "8.2(a)", "IV"
    start: int  # the label's span in the text
    end: int
    target: Section | None
    location: str


@dataclass(frozen=True)
class Party:
    term: str
    definition: Definition
    entity: int = 0  # names of one party share it: `("Ferrer" and/or "Supplier")` are one entity


ROLE_WORDS = {
    "licensor", "licensee", "company", "supplier", "distributor", "customer", "consultant", "client", "vendor",
    "buyer", "seller", "purchaser", "manufacturer", "franchisor", "franchisee", "sponsor", "provider", "reseller",
    "contractor", "agent", "developer", "publisher", "partner", "owner", "lessor", "lessee", "landlord", "tenant",
    "employer", "employee", "executive", "investor", "lender", "borrower", "producer", "marketer", "host", "operator",
    "servicer", "administrator", "sublicensee", "collaborator", "contributor", "endorser", "talent", "promoter",
    "advisor", "adviser", "bank", "service provider", "representative", "affiliate marketer", "institution",
}
_ENTITY = re.compile(r"\b(?:Inc|Incorporated|LLC|L\.L\.C|Ltd|Limited|Corp|Corporation|Company|GmbH|AG|S\.A|N\.V|B\.V|"
                     r"plc|PLC|L\.P|LP|LLP|Pty|S\.p\.A|S\.r\.l|corporation|company|partnership|limited liability|"
                     r"an individual|Trust|Bank|University|Co\.)\b")
_DOCUMENT_WORDS = {"agreement", "contract", "date", "amendment", "act", "code", "term", "period", "letter", "lease",
                   "license", "plan", "policy", "program", "project", "transaction", "merger", "acquisition"}
_GENERIC_WORDS = {"applicable", "other", "similar", "any", "all", "such", "relevant", "related"}
_NOT_PARTIES = {"agreement", "party", "parties", "effective date", "execution date", "commencement date",
                "closing date", "term", "territory"}


# --- cross-references -------------------------------------------------------------------------------------

_LABEL = r"\d{1,2}(?:\.\d{1,3}){0,3}(?:\([a-zA-Z0-9]{1,4}\))*|[IVXLC]{1,6}(?![a-z])"
_REFERENCE = re.compile(
    rf"(?P<word>\b(?:Sections?|SECTIONS?|sections?|Articles?|ARTICLES?|articles?|Paragraphs?|paragraphs?|"
    rf"Clauses?|clauses?)|§§?)\s*(?P<first>{_LABEL})"
    rf"(?P<more>(?:\s*(?:,|and|or|through|to|,\s*and|,\s*or)\s+(?:{_LABEL}))*)")
_LIST_LABEL = re.compile(_LABEL)
_EXTERNAL = re.compile(r"\s*(?:\([a-zA-Z0-9]{1,4}\))*\s*(?:,\s*)?of\s+(?!this\b|these\b)(?:the\s+)?\S")


@dataclass(frozen=True)
class ParsedContract:
    """A parsed contract. Offsets are character offsets in `text`."""

    text: str
    sections: tuple[Section, ...]
    definitions: tuple[Definition, ...]
    references: tuple[Reference, ...]
    parties: tuple[Party, ...]
    recitals: tuple[int, int] | None
    body_start: int | None
    signature_start: int | None
    exhibits: tuple[tuple[int, str], ...]  # (start, label)
    _section_starts: list[int] = field(repr=False, compare=False, default_factory=list)

    def location(self, offset: int) -> str:
        """Where `offset` is, as a lawyer cites it (see the module's table)."""
        for start, label in reversed(self.exhibits):
            if offset >= start:
                return label
        if self.signature_start is not None and offset >= self.signature_start:
            return "Signature Block"
        section = self.section_at(offset)
        if section is not None:
            return section.label
        if self.recitals is not None and self.recitals[0] <= offset < self.recitals[1]:
            return "R"
        return "P"  # before the first section (or between sections and the signature, where nothing else is)

    def section_at(self, offset: int) -> Section | None:
        """The deepest numbered section around `offset`."""
        i = bisect_right(self._section_starts, offset) - 1
        while i >= 0:
            section = self.sections[i]
            if section.start <= offset < section.end:
                return section
            i -= 1
        return None

    @cached_property
    def by_number(self) -> dict[str, Section]:
        return {s.number: s for s in self.sections}

    def resolve(self, label: str, word: str = "Section") -> Section | None:
        """The section a reference names (a lettered paragraph falls back to its section)."""
        if word.lower().startswith("article"):
            value = roman_value(label) if not label.isdigit() else int(label)
            return self.by_number.get(str(value)) if value else None
        number = label
        while True:
            found = self.by_number.get(number)
            if found is not None or "(" not in number:
                return found
            number = number[:number.rindex("(")]

    @cached_property
    def terms(self) -> dict[str, tuple[Definition, ...]]:
        """Every defined term and its definitions, in order of first definition."""
        out: dict[str, list[Definition]] = {}
        for d in self.definitions:
            out.setdefault(d.term, []).append(d)
        return {t: tuple(ds) for t, ds in out.items()}

    @cached_property
    def _definition_spans(self) -> list[tuple[int, int]]:
        return sorted(d.quote_span for d in self.definitions)

    def in_definition_quotes(self, start: int, end: int) -> bool:
        i = bisect_right(self._definition_spans, (start, len(self.text) + 1)) - 1
        return i >= 0 and self._definition_spans[i][0] <= start and end <= self._definition_spans[i][1]

    @cached_property
    def usages(self) -> dict[str, tuple[tuple[int, int], ...]]:
        """Capitalised usages of each defined term outside its definitions' quotes (longest term first)."""
        return self._scan(lower=False)

    @cached_property
    def lowercase_usages(self) -> dict[str, tuple[tuple[int, int], ...]]:
        """Lowercase occurrences of each defined term (acronyms and terms with digits have none)."""
        return self._scan(lower=True)

    def _scan(self, *, lower: bool) -> dict[str, tuple[tuple[int, int], ...]]:
        forms: dict[str, str] = {}
        for term in self.terms:
            if lower and not lowercase_form_exists(term):
                continue
            for form in term_forms(term):
                forms.setdefault(form.lower() if lower else form, term)
        found: dict[str, list[tuple[int, int]]] = {t: [] for t in self.terms}
        if not forms:
            return {t: () for t in found}
        pattern = re.compile(r"(?<![\w\-])(?:" + "|".join(term_pattern(f) for f in sorted(forms, key=len, reverse=True))
                             + r")(?![\w\-])")
        for m in pattern.finditer(self.text):
            if not lower and self.in_definition_quotes(m.start(), m.end()):
                continue
            found[forms[" ".join(m.group().split())]].append((m.start(), m.end()))
        return {t: tuple(spans) for t, spans in found.items()}

    @cached_property
    def party_terms(self) -> tuple[str, ...]:
        return tuple(p.term for p in self.parties)

    @cached_property
    def lower_forms(self) -> frozenset[str]:
        """Every spelling of every defined term, lower-cased."""
        return frozenset(f.lower() for t in self.terms for f in term_forms(t))

    def names_one_thing(self, term: str) -> bool:
        """Whether the term is defined as one thing ("the Territory", "this Agreement") rather than a class of
        things ("each, a Product", "means any entity that ...")."""
        definitions = self.terms.get(term, ())
        if not definitions or term.endswith("s"):
            return False
        for d in definitions:
            if d.style == "parenthetical":
                lead = self.text[self.text.rfind("(", 0, d.start) + 1:d.start - 1].lower()
                if not re.search(r"\b(?:the|this)\b", lead) or re.search(r"\b(?:each|a|an|collectively|any)\b", lead):
                    return False
            elif not d.body.lower().startswith(("the ", "this ")):
                return False
        return True

    def names_any(self, term: str) -> bool:
        """Whether the term is defined as every thing of a kind ("Law" means any law, statute or regulation), so
        that "similar" or "other" things of the kind are still within its meaning."""
        return any(d.style == "means" and re.match(r"(?:any|all|each|every)\b", d.body.lower())
                   for d in self.terms.get(term, ()))

    def names_a_class(self, term: str) -> bool:
        """Whether the term's definition is broad enough that "similar" or "third" things of the kind are still
        within it: a plural term ("Rights", "Applicable Laws"), a term that is itself generic ("Applicable Law"),
        or one defined as any thing of a kind or by a list ("means the applicable laws, rules, regulations ...",
        "natural persons, corporations, ..."). A lawyer would not call such a capital wrong."""
        words = term.lower().split()
        if term.endswith("s") and not term.endswith("ss") or set(words) & _GENERIC_WORDS:
            return True
        return self.names_any(term) or any(d.style == "means" and re.search(r",|and/or", d.body[:80])
                                           for d in self.terms.get(term, ()))

    def means_something_else(self, term: str, start: int) -> str | None:
        """The word before a lowercase or capitalised occurrence of `term` at `start` that shows the defined term
        is not meant there ("third party", "similar services", "any other agreement"), or None."""
        before = re.search(r"([A-Za-z\-]+)\s+$", self.text[max(0, start - 30):start])
        word = before.group(1).lower() if before else ""
        if f"{word} {term.lower()}" in self.lower_forms:
            return None  # "third party" where "Third Party" is itself a defined term
        if word == "third" or word in CONTRAST_WORDS and not self.names_any(term):
            return word  # "similar Laws" still fits a "Law" defined as any law: there the defined meaning is meant
        if word in OTHER_WORDS and self.names_one_thing(term) and term.lower() not in ("party", "parties"):
            return word
        if term == "Agreement" and word in AGREEMENT_CONTRAST | OTHER_WORDS:
            return word
        return None


def term_pattern(term: str) -> str:
    """A regular expression for `term` as it may be spaced in text extracted from a PDF."""
    return r"\s+".join(re.escape(word) for word in term.split())


def term_forms(term: str) -> tuple[str, ...]:
    """The spellings a usage of `term` may take: itself, its plural, the singular of a plural term."""
    forms = [term]
    if term[-1:].isalpha() and term[-1:].islower():
        forms += [term + "s", term + "es"] if not term.endswith("s") else [term[:-1]]
        if term.endswith("y") and len(term) > 3:
            forms.append(term[:-1] + "ies")
    return tuple(forms)


def lowercase_form_exists(term: str) -> bool:
    """Whether a lowercase occurrence of `term` can be a mistake: no acronym, figure or single capital in it."""
    words = term.split()
    return len(term) > 2 and not any(any(c.isdigit() for c in w) or w.isupper() for w in words)  # "ETON", "B"


# --- parsing ----------------------------------------------------------------------------------------------

def _regions(text: str) -> tuple[tuple[int, int] | None, list[tuple[int, str]]]:
    recitals = None
    start = _RECITALS_START.search(text, 0, min(len(text), 15_000))
    if start is not None:
        end = _RECITALS_END.search(text, start.start())
        if end is not None and end.start() - start.start() < 15_000:
            line_end = text.find("\n", end.end())
            recitals = (start.start(), len(text) if line_end < 0 else line_end)
    exhibits = []
    for m in _EXHIBIT.finditer(text):
        kind = m.group(1).capitalize()
        exhibits.append((m.start(), f"{kind} {m.group(2)}"))
    return recitals, exhibits


def _sections(text: str, stop: int) -> list[Section]:
    found: list[tuple[int, str, str, int, str]] = []  # start, label, number, depth, heading
    seen: set[str] = set()
    top = 0
    children: dict[str, int] = {}
    letters: dict[str, str] = {}
    candidates = sorted([(m, False) for m in _SECTION_LINE.finditer(text, 0, stop)]
                        + [(m, True) for m in _SECTION_INLINE.finditer(text, 0, stop)], key=lambda c: c[0].start())
    for m, inline in candidates:
        if found and m.start() <= found[-1][0]:
            continue
        if inline and _REFERRING_WORD.search(text, max(0, m.start() - 16), m.start()):
            continue
        after_sentence = text[max(0, m.start() - 200):m.start()].rstrip()[-1:] in (".", "]", "")
        if inline and (m.group("para") or m.groupdict().get("secno")) and not after_sentence:
            continue  # "means (a) ... and (b) ...", "pursuant to Section 4 Exclusivity": within a sentence
        line_end = text.find("\n", m.end())
        heading = text[m.end():line_end if line_end >= 0 else len(text)].strip()[:120]
        if m.group("para"):
            parent = next((f for f in reversed(found) if "(" not in f[2]), None)
            if parent is None:
                continue
            letter = m.group("para")
            expected = chr(ord(letters[parent[2]]) + 1) if parent[2] in letters else "a"
            if letter != expected:
                continue
            letters[parent[2]] = letter
            number = f"{parent[2]}({letter})"
            if number not in seen:
                found.append((m.start(), f"{parent[1]}({letter})", number, parent[3] + 1, heading))
                seen.add(number)
            continue
        reach = 1 if inline else 3  # how far a top-level number may skip ahead
        if m.group("art"):
            raw = m.group("artno")
            value = int(raw) if raw.isdigit() else roman_value(raw)
            if value is None or not top < value <= top + reach or str(value) in seen:
                continue
            top = value
            found.append((m.start(), f"Article {raw}", str(value), 0, heading))
            seen.add(str(value))
            continue
        number = (m.groupdict().get("secno") or m.group("num") or m.group("top") or m.groupdict().get("bare") or "")
        parts = number.split(".")
        first = int(parts[0])
        if len(parts) == 1:
            if not top < first <= top + reach or number in seen:
                continue
            top = first
        else:
            parent_number = ".".join(parts[:-1])
            last = int(parts[-1])
            if number in seen or not (first == top or first == top + 1 and len(parts) == 2):
                continue
            if len(parts) > 2 and parent_number not in seen:
                continue
            previous = children.get(parent_number, 0)
            # Run-together text: the next number, or (a redacted or reserved section between) up to three past it
            # where it starts a sentence ("... [***].   3.4 Use of ...").
            if inline and not (last == previous + 1 or previous == 0 and last in (0, 1)
                               or after_sentence and previous < last <= previous + 3):
                continue
            if last > previous + 3 and not (last in (1, 10, 100) or parts[-1].startswith("0")):
                continue
            children[parent_number] = last
            top = first
        found.append((m.start(), number, number, len(parts) - 1, heading))
        seen.add(number)
    sections = []
    for i, (start, label, number, depth, heading) in enumerate(found):
        end = next((f[0] for f in found[i + 1:] if f[3] <= depth), stop)
        sections.append(Section(label=label, number=number, start=start, end=end, depth=depth, heading=heading))
    return sections


def _definitions(text: str, located: ParsedContract) -> list[Definition]:
    found: dict[int, Definition] = {}

    def add(term_match: re.Match[str], style: DefinitionStyle, body_start: int, body_end: int) -> None:
        raw = term_match.group("term").rstrip().rstrip(",.").rstrip()
        term = " ".join(raw.split())
        words = term.split()
        if not 1 <= len(words) <= 8 or not (term[0].isupper() or term[0].isdigit()):
            return
        start = term_match.start("term")
        body = " ".join(text[body_start:body_end].split())
        found.setdefault(start, Definition(term=term, start=start, end=start + len(raw), style=style, body=body,
                                           body_start=body_start, body_end=body_end,
                                           location=located.location(start)))

    for m in _QUOTED_TERM.finditer(text):
        verb = _MEANS_VERB.match(text, m.end())
        if verb is None:
            continue
        _, end = sentence_bounds(text, verb.end(), semicolons=True)
        add(m, "means", verb.end(), max(verb.end(), end))
        before = re.search(rf"{_QUOTED}\s*(?:,|or|and)\s*$", text[max(0, m.start() - 90):m.start()])
        if before is not None:
            shifted = _QUOTED_TERM.match(text, max(0, m.start() - 90) + before.start())
            if shifted is not None:
                add(shifted, "means", verb.end(), max(verb.end(), end))
    for section in located.sections:  # a numbered item of a definitions list: `1.1"Affiliates" of a Party ...`
        lead = _LEADING_TERM.match(text, section.start)
        if lead is None or not _heading_fits(lead.group("heading"), lead.group("term")):
            continue
        chain = _QUOTED_CHAIN.match(text, lead.end())
        quoted_end = chain.end() if chain else lead.end()
        _, end = sentence_bounds(text, quoted_end, semicolons=True)
        add(lead, "means", quoted_end, max(quoted_end, end))
        for q in _QUOTED_TERM.finditer(text, lead.end(), quoted_end):
            add(q, "means", quoted_end, max(quoted_end, end))
    for m in _REFERRED_AS.finditer(text):  # `shall hereinafter be referred to as a "Party" and collectively as ...`
        if m.start() > (located.body_start or 3000) + 3000:
            break
        chain = _QUOTED_CHAIN.match(text, m.start("first"))
        body_start, _ = sentence_bounds(text, m.start(), semicolons=True)
        for q in _QUOTED_TERM.finditer(text, m.start("first"), chain.end() if chain else m.end()):
            add(q, "parenthetical", body_start, m.start())
    for lead in _PAREN_LEAD.finditer(text):
        if _NOT_A_DEFINITION.search(lead.group("lead")):
            continue
        rest = _PAREN_REST.match(text, lead.end())
        if rest is None:
            continue
        inside_end = rest.end() - 1
        body_start, _ = sentence_bounds(text, lead.start(), semicolons=True)
        clause = text.rfind(",", body_start, lead.start())
        body_start = max(body_start, clause + 1) if lead.start() - body_start > 200 else body_start
        for q in _QUOTED_TERM.finditer(text, lead.end(), inside_end):
            add(q, "parenthetical", body_start, lead.start())
    return sorted(found.values(), key=lambda d: d.start)


def _references(text: str, located: ParsedContract) -> list[Reference]:
    heading_starts = {s.start for s in located.sections}
    refs = []
    for m in _REFERENCE.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if line_start in heading_starts and not text[line_start:m.start()].strip():
            continue  # the section's own number at the start of its line
        word = m.group("word")
        labels = [(m.start("first"), m.group("first"))]
        labels += [(m.start("more") + x.start(), x.group()) for x in _LIST_LABEL.finditer(m.group("more") or "")]
        if _EXTERNAL.match(text, m.end()):
            continue
        for start, label in labels:
            article = word.lower().startswith("article") and (label.isdigit() or roman_value(label) is not None)
            if not article and not label[0].isdigit():
                continue
            target = located.resolve(label, "Article" if article else "Section")
            refs.append(Reference(word=word, label=label, start=start, end=start + len(label), target=target,
                                  location=located.location(start)))
    return refs


def _parties(text: str, located: ParsedContract, definitions: list[Definition]) -> list[Party]:
    limit = located.body_start if located.body_start is not None and located.body_start >= 200 else 3000
    parties: list[Party] = []
    previous_end = 0
    for d in definitions:
        if d.start > limit:
            break
        window = text[max(previous_end, d.start - 300):d.start]  # what the parenthesis names
        previous_end = d.end
        last = d.term.lower().split()[-1]
        if (d.style != "parenthetical" or d.term.lower() in _NOT_PARTIES or d.term in (p.term for p in parties)
                or last in HEAD_NOUNS or last in _DOCUMENT_WORDS):
            continue  # "Development Agreement", "Licensed Products": defined in the preamble, but not parties
        role = d.term.lower() in ROLE_WORDS or d.term.lower().split()[-1] in ROLE_WORDS
        if not (role or _ENTITY.search(window)) or any(ch.isdigit() for ch in d.term):
            continue
        uses = len(re.findall(rf"(?<![\w\-]){term_pattern(d.term)}(?![\w\-])", text)) - 1
        if uses >= 3:
            same = parties[-1] if parties and _ALIAS_GAP.fullmatch(text[parties[-1].definition.end:d.start]) else None
            entity = same.entity if same is not None else (parties[-1].entity + 1 if parties else 0)
            parties.append(Party(term=d.term, definition=d, entity=entity))
    return parties


# What stands between two names given to one party: `"Ferrer" and/or "Supplier"`, `("Ferrer")("Supplier")`.
_ALIAS_GAP = re.compile(r"[\s\"“”(),/]*(?:(?:and/or|or|and|also|hereinafter|referred\s+to\s+as|as|the|a|an|"
                        r"indistinctly|collectively|together|individually)[\s\"“”(),/]+)*[\s\"“”(),/]*")


@lru_cache(maxsize=16)
def parse_contract(text: str) -> ParsedContract:
    """Everything this module reads from one contract's text (the last few parses are kept: a parse is
    immutable, and the builder, the verifier and the offline models read the same texts in turn)."""
    recitals, exhibits = _regions(text)
    signature = None
    sections_stop = len(text)
    first_guess = _sections(text, len(text))
    body_start = first_guess[0].start if first_guess else None
    if body_start is not None:
        exhibits = [(s, label) for s, label in exhibits if s > body_start]
        if exhibits:
            sections_stop = exhibits[0][0]
        witness = [m.start() for m in _SIGNATURE.finditer(text, body_start, sections_stop)]
        if witness:
            signature = witness[-1]
            sections_stop = min(sections_stop, signature)
    else:
        exhibits = []
    # Numbering is read in order, so the sections before the stop are those of the first reading, cut at it.
    sections = [s if s.end <= sections_stop else Section(label=s.label, number=s.number, start=s.start,
                                                         end=sections_stop, depth=s.depth, heading=s.heading)
                for s in first_guess if s.start < sections_stop]
    located = ParsedContract(text=text, sections=tuple(sections), definitions=(), references=(), parties=(),
                       recitals=recitals, body_start=body_start, signature_start=signature,
                       exhibits=tuple(exhibits), _section_starts=[s.start for s in sections])
    definitions = _definitions(text, located)
    references = _references(text, located)
    parties = _parties(text, located, definitions)
    return ParsedContract(text=text, sections=located.sections, definitions=tuple(definitions),
                    references=tuple(references), parties=tuple(parties), recitals=recitals, body_start=body_start,
                    signature_start=signature, exhibits=located.exhibits, _section_starts=located._section_starts)
