"""Seeded defect injection: candidate edits of the 8 error categories in one contract, each with the gold tuple
it creates, written at injection time.

Every candidate is an `Injection`: a span of the source text, its replacement, and the finding it makes true
(fields and canonical location, read from the source's structure by `document`). The candidates of a category
come in a seeded order; which of them survive is decided by the verifier (`verify.py`) on the assembled item,
not here: this module only proposes edits that are structurally possible.

- `undefined_capitalized_terms`: capitalise a lowercase noun phrase the contract never defines
  (`marketing materials` -> `Marketing Materials`), never a verb and its object (`to hire personnel`) or a phrase
  with a token that is no word of the contract (`usesuch information`; `phrases`); gold: the term and where it occurs.
- `uncapitalized_defined_terms`: lower-case one usage of a defined term (`Licensed Products` ->
  `licensed products`); gold: the term and where it occurs.
- `unused_defined_terms`: define, among the contract's definitions (in alphabetical place, never after a filing
  legend), a shorthand for a phrase the contract writes out and never uses (`"Termination Notice" means the notice
  of termination referred to in Section 12.2.`); failing such a phrase, a term named for an article's subject and a
  noun its section uses; gold: the term and where it is defined.
- `incorrect_section_references`: renumber a resolved cross-reference to an existing sibling section
  (`Section 8.2` -> `Section 8.3`); in a list of references (`Sections 4, 7, 9 and 12`) at most one, and only
  to a number that keeps an ascending list ascending (`reflists`: an out-of-order number is a giveaway, and a list
  not in order to begin with is left alone); gold: wrong, correct, where the reference is, and its distance in
  characters to the start of the correct section.
- `incorrect_party_references`: name another party as the actor of a provision (`Licensee shall pay` ->
  `Licensor shall pay`), never another name of the same party (`parties`: CUAD's annotation and the contract's
  own definitions); gold: wrong, correct and where.
- `incorrectly_capitalized_terms`: capitalise a defined term where the context means something else
  (`any other agreement` -> `any other Agreement`, `third party` -> `third Party`); gold: the term as written
  and where.
- `terms_defined_multiple_times`: define a term a second time, far from the first, with a figure, a date or a
  party changed (`As used in this Agreement, "Effective Date" means April 15, 2024.`); gold: the term and where
  each definition is.
- `inconsistent_language`: change a figure in one of two provisions that must agree (the same words, the same
  party, the same thing counted), or state one party's obligation a second time in its own article with another
  figure; the new figure agrees with its noun (`two (2) years`) and a sentence whose figures depend on each
  other is left alone; or set a defined term against its use: where a term stands for one figure (`"Initial Term"
  means a period of three (3) years`), change the figure a use restates (`the Initial Term of three (3) years`) or
  add one (`the Initial Term of two (2) years shall ...`); gold: where each provision is.

How many of each a contract gets follows the paper's per-contract averages (Table 4: gold totals over 44
contracts) scaled by the contract's length against `REFERENCE_CHARS` (the paper's 10-15 pages), rounded
stochastically with the contract's seed, and at least one of each.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from lhl_platform.scrub.categories import ERROR_CATEGORIES, CategoryKey
from lhl_platform.scrub.document import (
    ROLE_WORDS,
    Definition,
    ParsedContract,
    Section,
    lowercase_form_exists,
    roman_value,
    term_forms,
    term_pattern,
)
from lhl_platform.scrub.figures import defined_figure, parenthetical_value, restatements
from lhl_platform.scrub.items import distance_bucket
from lhl_platform.scrub.parties import AnnotatedParties, party_entities
from lhl_platform.scrub.phrases import not_words, verb_phrase
from lhl_platform.scrub.records import MIN_GAP as MIN_GAP  # the builder's spacing of edits
from lhl_platform.scrub.reflists import in_order, reference_lists
from lhl_platform.scrub.style import (
    DraftingStyle,
    in_heading,
    mostly_upper,
    quantities,
    sentence_bounds,
    shift_in_agreement,
    shift_quantity,
    starts_sentence,
    title_case,
)
from lhl_platform.scrub.vocabulary import (
    HEAD_NOUNS,
    NEEDS_MODIFIER,
    NON_MODIFIERS,
    PARTY_VERBS,
)

INJECTOR_VERSION = "scrub-inject-v4"
PAPER_CONTRACTS = 44
REFERENCE_CHARS = 30_000  # the length of a 10-15 page contract in plain text, roughly


@dataclass(frozen=True)
class Injection:
    """One candidate edit of the source and the gold tuple it creates."""

    category: CategoryKey
    start: int  # the source span replaced (start == end: an insertion)
    end: int
    replacement: str
    fields: dict[str, str] = field(hash=False)  # the finding's fields, locations included
    distance: int | None = None  # section references: characters to the start of the correct section
    subject: str | None = None  # alternatives of one defect share it: at most one of them is taken

    def overlaps(self, other: Injection, margin: int = 2) -> bool:
        return self.start < other.end + margin and other.start < self.end + margin


def targets(text_length: int, rng: random.Random) -> dict[CategoryKey, int]:
    """How many defects of each error category to aim for in a contract of this length."""
    scale = min(2.0, max(0.1, text_length / REFERENCE_CHARS))
    out: dict[CategoryKey, int] = {}
    for cat in ERROR_CATEGORIES:
        expected = cat.paper_total / PAPER_CONTRACTS * scale
        whole = int(expected)
        out[cat.key] = max(1, whole + (rng.random() < expected - whole))
    return out


# --- where text can be edited -----------------------------------------------------------------------------

_AFTER_NUMBER = re.compile(r"(?:\d+(?:\.\d+)*\.?|\([a-zA-Z0-9]{1,4}\))[ \t]+$")


def _in_body(doc: ParsedContract, offset: int) -> bool:
    """Before the signature block and the exhibits."""
    if doc.signature_start is not None and offset >= doc.signature_start:
        return False
    return not (doc.exhibits and offset >= doc.exhibits[0][0])


def _editable(doc: ParsedContract, start: int, end: int) -> bool:
    """Body text a reviewer reads as prose: not a heading, not a capitals block, not inside definition quotes,
    not the signature block or an exhibit."""
    text = doc.text
    if not _in_body(doc, start):
        return False
    line_start = text.rfind("\n", 0, start) + 1
    if mostly_upper(text, max(line_start, start - 80), min(len(text), end + 80)):
        return False
    if _AFTER_NUMBER.search(text, max(0, start - 14), start):
        return False  # the first word after a section number: changing its case can make or unmake a section
    return not in_heading(text, start) and not doc.in_definition_quotes(start, end)


_LEGEND = re.compile(r"\*\*\*|\[\*+\]|\bomitted\b|Confidential\s+Treatment|\bSource:|\bPage\s+\d", re.IGNORECASE)


def after_legend(text: str, point: int) -> bool:
    """Whether the sentence ending at `point` is a filing legend or page furniture ("*** Portions of this page have
    been omitted ...", "Source: ... 10-Q"), not the contract's own words: nothing is added after it."""
    start, _ = sentence_bounds(text, max(0, point - 1))
    return _LEGEND.search(text, start, point) is not None or mostly_upper(text, max(start, point - 200), point)


def _leaf_sections(doc: ParsedContract) -> list[Section]:
    """Body sections without subsections or definitions whose text ends with a full stop: where a sentence can
    be added."""
    defining = {d.location for d in doc.definitions}
    out = []
    for i, s in enumerate(doc.sections):
        has_child = i + 1 < len(doc.sections) and doc.sections[i + 1].start < s.end
        body = doc.text[s.start:s.end].rstrip()
        if (not has_child and s.label not in defining and len(body) >= 150 and body.endswith(".")
                and _editable(doc, s.start + len(body) - 1, s.start + len(body))
                and not after_legend(doc.text, s.start + len(body))):
            out.append(s)
    return out


ALTERNATIVES = 3  # places offered for one added sentence, in case the first is taken


def _far(doc: ParsedContract) -> int:
    """How far apart two provisions must be to be placed apart (a quarter of a short contract)."""
    return min(3_000, len(doc.text) // 4)


def _insertion_point(doc: ParsedContract, section: Section) -> int:
    return section.start + len(doc.text[section.start:section.end].rstrip())


def _words(text: str, lower: bool = True) -> list[str]:
    return re.findall(r"[a-z]+" if lower else r"[A-Za-z]+", text.lower() if lower else text)


# --- candidates per category ------------------------------------------------------------------------------

_PHRASE = re.compile(r"(?<![\w\-\"“])(?:(?P<mod>[a-z]{3,}(?:-[a-z]+)?)\s)?(?P<head>[a-z]{3,})(?![\w\-\"”])")


def undefined_capitalized(doc: ParsedContract, style: DraftingStyle, rng: random.Random,
                          entities: Mapping[str, int]) -> list[Injection]:
    text = doc.text
    defined = {f.lower() for t in doc.terms for f in term_forms(t)}
    capitalised = set(re.findall(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)?\b", " ".join(text.split())))
    phrases: dict[str, list[tuple[int, int]]] = {}
    for m in _PHRASE.finditer(text):
        head, mod = m.group("head"), m.group("mod")
        if head not in HEAD_NOUNS:
            continue
        if mod is not None and (mod in NON_MODIFIERS or mod.endswith("ly") or mod == head
                                or mod.endswith("s") and not mod.endswith(("ss", "us", "is"))):
            mod = None  # "directors employees" is a missing comma, not a noun phrase
        if mod is None and head in NEEDS_MODIFIER:
            continue
        start = m.start("mod") if mod is not None else m.start("head")
        phrase = f"{mod} {head}" if mod is not None else head
        if phrase in defined or title_case(phrase).lower() in defined or title_case(phrase) in capitalised:
            continue
        if not _editable(doc, start, m.end()) or starts_sentence(text, start):
            continue
        if verb_phrase(text, start) or not_words(text, phrase):
            continue  # "to hire personnel" is a verb and its object; "usesuch information" a typo of the source
        phrases.setdefault(phrase, []).append((start, m.end()))
    out = []
    names = sorted(phrases, key=lambda p: (-len(p.split()), p))
    rng.shuffle(names)
    names.sort(key=lambda p: -len(p.split()))  # two-word phrases first: they read most like defined terms
    for phrase in names:
        sites = phrases[phrase]
        for start, end in rng.sample(sites, min(2, len(sites))):
            term = title_case(" ".join(text[start:end].split()))
            out.append(Injection("undefined_capitalized_terms", start, end, _respace(text[start:end], term),
                                 {"term": term, "location": doc.location(start)}))
    return out


def _respace(original: str, replacement_words: str) -> str:
    """`replacement_words` with the original's spacing between words (a line break stays a line break)."""
    gaps = re.findall(r"\s+", original)
    words = replacement_words.split(" ")
    return "".join(w + (gaps[i] if i < len(gaps) else "") for i, w in enumerate(words))


def uncapitalized_defined(doc: ParsedContract, style: DraftingStyle, rng: random.Random,
                          entities: Mapping[str, int]) -> list[Injection]:
    text = doc.text
    out = []
    proper_names = {p.term for p in doc.parties if not is_role_word(p.term)}
    lowercase_words = set(re.findall(r"(?<![A-Za-z])[a-z]+(?![A-Za-z])", text))  # as the contract writes them
    terms = sorted(doc.terms)
    rng.shuffle(terms)
    for term in terms:
        if not lowercase_form_exists(term) or term in proper_names:
            continue
        if any(w not in lowercase_words for w in _words(term)):
            continue  # a word the contract never writes in lowercase: lower-casing it would not read as prose
        sites = [(s, e) for s, e in doc.usages.get(term, ()) if " ".join(text[s:e].split()) == term
                 and _editable(doc, s, e) and not starts_sentence(text, s)]
        spare = len(doc.usages.get(term, ())) - 1  # at least one capitalised usage stays
        for start, end in rng.sample(sites, max(0, min(2, len(sites), spare))):
            out.append(Injection("uncapitalized_defined_terms", start, end, text[start:end].lower(),
                                 {"term": term, "location": doc.location(start)}))
    return out


def is_role_word(term: str) -> bool:
    """A party named by its role (`Licensee`, `Service Provider`) rather than by its name."""
    return term.lower() in ROLE_WORDS or term.lower().split()[-1] in ROLE_WORDS


# "notice of termination", "certificate of insurance": a phrase the contract writes out, which
# a drafter may have defined as a shorthand ("Termination Notice") and then never used.
_OF_PHRASE = re.compile(r"(?<![\w\-])(?P<head>[a-z]{4,})\s+of\s+(?P<mod>[a-z]{4,})(?=\s*[,.;:)]|\s+(?:and|or|under|to|"
                        r"by|in|with|for|from|on|shall|will|is|as|at|that|which|hereunder|thereof|pursuant)\b)")
_NOT_NOUN_ENDING = ("ed", "ly", "ing", "ive", "ous", "ful", "able", "ible", "ent", "ory", "ic", "ar", "teen", "ty")
_NOT_NOUNS = frozenset({"time", "like", "such", "same", "other", "each", "either", "both", "none", "brand", "this",
                        "thereof", "hereof", "business", "means", "process", "others", "rights", "features",
                        "notices", "costs", "cast", "attorneys", "lawyers", "counsel", "products", "sales"})
_OF_HEADS = HEAD_NOUNS | frozenset({"certificate", "certificates", "list", "letter", "proof", "evidence", "statement",
                                    "summary", "method", "place", "level", "term", "terms", "certification"})
# After an added definition: the next definition, numbered item or paragraph (not the middle of a sentence).
_NEXT_ITEM = re.compile(r"[ \t]*(?:\n|$|\d{1,2}(?:\.\d{1,3})+\.?[ \t\"“]|\([a-z0-9]{1,3}\)[ \t]|[\"“][A-Z])")
_REFERRING = ("described in", "set out in", "referred to in", "provided for in")


def _singular(noun: str) -> str:
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    return noun[:-1] if noun.endswith("s") and not noun.endswith(("ss", "sis", "us")) else noun


def unused_defined(doc: ParsedContract, style: DraftingStyle, rng: random.Random,
                   entities: Mapping[str, int]) -> list[Injection]:
    """A term built from the contract's own words (a section's heading and a noun that section uses), defined
    where the contract defines its terms (after a definition that sorts before it), and never used."""
    text = doc.text
    lowered = text.lower()
    places = [d for d in doc.definitions if d.style == "means" and d.location not in ("P", "R")
              and _in_body(doc, d.start) and text[d.body_end - 1:d.body_end] == "."
              and not text[d.body_end - 2:d.body_end - 1].isdigit() and _NEXT_ITEM.match(text, d.body_end)
              and _editable(doc, d.body_end - 1, d.body_end)
              and not after_legend(text, d.body_end)]
    phrases: dict[str, list[int]] = {}
    for m in _OF_PHRASE.finditer(text):
        head, mod = m.group("head"), m.group("mod")
        if (head in _OF_HEADS and head not in doc.lower_forms and mod not in NON_MODIFIERS
                and mod not in doc.lower_forms and not mod.endswith(_NOT_NOUN_ENDING) and mod not in _NOT_NOUNS
                and _editable(doc, m.start(), m.end())):
            phrases.setdefault(f"{head} of {mod}", []).append(m.start())
    out = []
    names = sorted(phrases)
    rng.shuffle(names)
    for phrase in names:
        head, _, mod = phrase.split()
        singular = _singular(head)
        term = title_case(f"{_singular(mod)} {singular}")  # "schedule of payments" -> "Payment Schedule"
        if not_words(text, term, least=1):
            continue  # a word the contract never writes (a typo run together)
        if any(re.search(rf"(?<![\w\-]){term_pattern(f.lower())}(?![\w\-])", lowered) for f in term_forms(term)):
            continue
        where = {doc.location(at) for at in phrases[phrase]}
        first = doc.section_at(phrases[phrase][0])
        if len(where) == 1 and first is not None:
            label = first.label if first.label.startswith("Article") else f"Section {first.label}"
            body = f"the {singular} of {mod} {rng.choice(_REFERRING)} {label}"
        else:
            body = f"any {singular} of {mod} under {style.self_name}"
        if not places:  # no definitions list to hold it (a term defined in passing would repeat the phrase)
            continue
        before = [d for d in places if d.term.lower() < term.lower()] or places[:1]
        anchor = max(before, key=lambda d: (d.term.lower(), d.start))
        point = anchor.body_end
        sentence = f" {style.quoted(term)} {style.means} {body}."
        out.append(Injection("unused_defined_terms", point, point, sentence,
                             {"term": term, "location": doc.location(point - 1)}, subject=f"term:{term}"))
    return out or _named_for_a_section(doc, style, rng, places)


_SUBJECT_HEADING = re.compile(r"[ \t]*(?:(?:ARTICLE|Article|SECTION|Section)[ \t]+)?(?:\d{1,2}|[IVXLC]{1,6})\.?[ \t]+"
                              r"(?P<word>[A-Z][A-Za-z]+(?i:tion|ment|ance|ence|ity|ure))\b")


def _named_for_a_section(doc: ParsedContract, style: DraftingStyle, rng: random.Random,
                         places: list[Definition]) -> list[Injection]:
    """When the contract writes out no such phrase: a term named for what a section is about and a noun it uses
    (`8. Termination` and its "notice" -> "Termination Notice"), defined at the end of that section."""
    text = doc.text
    lowered = text.lower()
    out = []
    for section in _leaf_sections(doc):
        top = next((t for t in doc.sections if t.depth == 0 and t.start <= section.start < t.end), section)
        m = _SUBJECT_HEADING.match(text, top.start)
        if m is None:
            continue
        words = re.findall(r"(?<![\w\-])[a-z]{4,}(?![\w\-])", text[section.start:section.end])
        nouns = [w for w in dict.fromkeys(words) if w in HEAD_NOUNS and w not in doc.lower_forms]
        if not nouns:
            continue
        noun = max(nouns, key=words.count)
        term = title_case(f"{m.group('word').lower()} {noun}")
        if any(re.search(rf"(?<![\w\-]){term_pattern(f.lower())}(?![\w\-])", lowered) for f in term_forms(term)):
            continue
        label = section.label if section.label.startswith("Article") else f"Section {section.label}"
        if places:  # among the contract's definitions, in order
            before = [d for d in places if d.term.lower() < term.lower()] or places[:1]
            point = max(before, key=lambda d: (d.term.lower(), d.start)).body_end
            sentence = f" {style.quoted(term)} {style.means} the {noun} {rng.choice(_REFERRING)} {label}."
        else:
            point = _insertion_point(doc, section)
            sentence = f" {style.quoted(term)} {style.means} the {noun} {rng.choice(_REFERRING)} this {label}."
        out.append(Injection("unused_defined_terms", point, point, sentence,
                             {"term": term, "location": doc.location(point - 1)}, subject=f"term:{term}"))
    rng.shuffle(out)
    return out


def _siblings(doc: ParsedContract, target: Section) -> list[Section]:
    """Sections numbered like `target` (same depth, same parent first), nearest number first."""
    parent = target.number.rsplit(".", 1)[0] if "." in target.number else ""
    same_parent = [s for s in doc.sections if s.depth == target.depth and s is not target and "(" not in s.number
                   and (s.number.rsplit(".", 1)[0] if "." in s.number else "") == parent]
    index = {s.number: i for i, s in enumerate(doc.sections)}
    here = index[target.number]
    return sorted(same_parent, key=lambda s: abs(index[s.number] - here))


def section_references(doc: ParsedContract, style: DraftingStyle, rng: random.Random,
                       entities: Mapping[str, int]) -> list[Injection]:
    by_bucket: dict[str, list[Injection]] = {}
    lists = reference_lists(doc)
    for ref in doc.references:
        target = ref.target
        if target is None or "(" in ref.label or not _editable(doc, ref.start, ref.end):
            continue
        if doc.section_at(ref.start) is target:
            continue  # a section citing itself ("this Section 4.2") is not a cross-reference to renumber
        article = ref.word.lower().startswith("article") and (ref.label.isdigit() or roman_value(ref.label) is not None)
        siblings = _siblings(doc, target)
        if not siblings:
            continue
        listed = {r.label for r in doc.references if abs(r.start - ref.start) < 60}
        siblings = [x for x in siblings if x.number not in listed]  # not "Sections 2.2 and 2.2"
        group = lists.get(ref.start)
        if group is not None:  # one of a list ("Sections 7, 9, 11 and 12"): the wrong number keeps its order
            siblings = in_order(group, ref, siblings)
        if not siblings:
            continue
        wrong = siblings[min(len(siblings) - 1, rng.randrange(2))]
        if article and not ref.label.isdigit():
            value = int(wrong.number)
            label = _roman(value) if roman_value(ref.label) is not None else str(value)
        else:
            label = wrong.number
        distance = abs(target.start - ref.start)
        injection = Injection("incorrect_section_references", ref.start, ref.end, label,
                              {"wrong": label, "correct": ref.label, "location": doc.location(ref.start)},
                              distance=distance,
                              subject=f"list:{group[0].start}" if group is not None else None)  # one per list
        by_bucket.setdefault(distance_bucket(distance), []).append(injection)
    # Round-robin over distance buckets, so the distances span short and long references alike.
    for candidates in by_bucket.values():
        rng.shuffle(candidates)
    buckets = sorted(by_bucket, key=lambda b: int(b.split("-")[0].rstrip("+")), reverse=True)
    out = []
    while any(by_bucket.values()):
        for bucket in buckets:
            if by_bucket[bucket]:
                out.append(by_bucket[bucket].pop())
    return out


def _roman(value: int) -> str:
    numerals = ((10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))
    out = ""
    for amount, numeral in numerals:
        while value >= amount:
            out += numeral
            value -= amount
    return out


def party_references(doc: ParsedContract, style: DraftingStyle, rng: random.Random,
                     entities: Mapping[str, int]) -> list[Injection]:
    """Another party named as the actor: always a name of another entity, never an alias of the same one."""
    text = doc.text
    parties = [p for p in doc.party_terms if p in entities]
    if len(set(entities[p] for p in parties)) < 2:
        return []
    counts = {p: len(doc.usages.get(p, ())) for p in parties}
    out = []
    for correct in parties:
        others = sorted((p for p in parties if entities[p] != entities[correct]), key=lambda p: (-counts[p], p))
        wrong = others[0]
        for start, end in doc.usages.get(correct, ()):
            if text[start:end] != correct or not _editable(doc, start, end) or doc.location(start) in ("P", "R"):
                continue
            after = re.match(r"(?:['’]s)?\s+(\w+)", text[end:end + 30])
            if after is None or after.group(1) not in PARTY_VERBS:
                continue
            out.append(Injection("incorrect_party_references", start, end, wrong,
                                 {"wrong": wrong, "correct": correct, "location": doc.location(start)}))
    rng.shuffle(out)
    return out


def incorrectly_capitalized(doc: ParsedContract, style: DraftingStyle, rng: random.Random,
                            entities: Mapping[str, int]) -> list[Injection]:
    text = doc.text
    out = []
    for term, spans in doc.lowercase_usages.items():
        forms = {f.lower(): f for f in term_forms(term)}
        for start, end in spans:
            written = forms.get(" ".join(text[start:end].split()))
            if written is None or not _editable(doc, start, end):
                continue
            if any(d.body_start <= start < d.body_end for d in doc.terms[term]):
                continue  # inside the term's own definition
            if doc.means_something_else(term, start) is not None and (term == "Agreement"
                                                                        or not doc.names_a_class(term)):
                out.append(Injection("incorrectly_capitalized_terms", start, end, _respace(text[start:end], written),
                                     {"term": written, "location": doc.location(start)}))
    rng.shuffle(out)
    # "any other agreement" is everywhere: one such edit a contract, after the terms that are its own.
    agreement = [i for i in out if i.fields["term"].lower().startswith("agreement")]
    return [i for i in out if i not in agreement] + agreement[:1]


_SCOPED = re.compile(r"for\s+(?:the\s+)?purposes?\s+of|as\s+used\s+in\s+this\s+(?:section|article|paragraph)",
                     re.IGNORECASE)


def _conflicting_body(doc: ParsedContract, body: str, rng: random.Random, entities: Mapping[str, int]) -> str | None:
    """The body with one figure or date changed (in agreement with what it counts), or one party named instead
    of another party (never another name of the same party)."""
    found = [q for q in quantities(body) if not _arithmetic(body)]
    if found:
        start, end, _ = rng.choice(found)
        shifted = shift_in_agreement(body, start, end, rng.randrange(3))
        if shifted is not None:
            return body[:start] + shifted[1] + body[shifted[0]:]
    parties = [p for p in doc.party_terms if p in entities]
    for party in parties:
        m = re.search(rf"(?<![\w\-]){re.escape(party)}(?![\w\-])(?!['’](?!s))", body)  # not "Imprimis' product"
        named = {entities[p] for p in parties if re.search(rf"(?<![\w\-]){re.escape(p)}(?![\w\-])", body)}
        others = [p for p in parties if entities[p] not in named]  # not "Aura and/or Aura", not an alias
        if m and others:
            return body[:m.start()] + others[0] + body[m.end():]
    return None


def duplicate_definitions(doc: ParsedContract, style: DraftingStyle, rng: random.Random,
                          entities: Mapping[str, int]) -> list[Injection]:
    text = doc.text
    sections = _leaf_sections(doc)
    out = []
    defined_once = [ds[0] for ds in doc.terms.values() if len(ds) == 1]
    rng.shuffle(defined_once)
    for definition in defined_once:
        if (definition.term.lower() in ("agreement", "party", "parties") or definition.term in doc.party_terms
                or not _in_body(doc, definition.start)):
            continue  # a party's name, or a definition in the signature block or an exhibit
        if definition.style == "means":
            body = re.sub(r"[\s;,.]+(?:and|or)?\s*$", "", definition.body).strip()
            if (not 10 <= len(body) <= 300 or not body[:1].isalpha() or re.search(r"[\"“:]|\([a-zA-Z0-9]{1,4}\)", body)
                    or _SCOPED.search(text[max(0, definition.start - 120):definition.start])):
                continue  # a list, a quotation or a scoped definition does not restate cleanly
        else:
            restated = parenthetical_value(definition.term, definition.body)
            if restated is None:
                continue
            body = restated
        conflicting = _conflicting_body(doc, body, rng, entities)
        if conflicting is None:
            continue
        far = [s for s in sections if abs(s.start - definition.start) > _far(doc)
               and s.number.split(".")[0] != definition.location.split(".")[0]]
        if not far:
            continue
        sentence = f" As used in {style.self_name}, {style.quoted(definition.term)} {style.means} {conflicting}."
        for section in rng.sample(far, min(ALTERNATIVES, len(far))):
            point = _insertion_point(doc, section)
            out.append(Injection("terms_defined_multiple_times", point, point, sentence,
                                 {"term": definition.term, "location": definition.location,
                                  "location_2": doc.location(point - 1)}, subject=f"term:{definition.term}"))
    return out


_NUMBERING = re.compile(r"(?:(?:Section|SECTION)\s+)?(?:\d+(?:\.\d+)*\.?|\([a-zA-Z0-9]{1,4}\))\s+")


def _provision(text: str, start: int, end: int) -> tuple[int, int]:
    """A sentence without the heading lines and the section number in front of it."""
    while (newline := text.find("\n", start, end)) >= 0:
        line = text[start:newline].strip()
        if line and not in_heading(text, start) and not re.fullmatch(r"[\w.()]{1,8}", line):
            break
        start = newline + 1
    lead = _NUMBERING.match(text, start)
    return (lead.end() if lead else start), end


def _content_words(sentence: str) -> set[str]:
    return {w for w in _words(sentence) if len(w) > 3 and w not in NON_MODIFIERS}


_ARITHMETIC = re.compile(r"\b(?:times|multiplied|divided|equal\s+to|equals|sum\s+of|total\s+of|totals?|plus|minus|"
                         r"less|aggregate|in\s+excess\s+of|exceeds?|product\s+of|per\s+cent\s+of|percent\s+of)\b|%\s+of",
                         re.IGNORECASE)


def _arithmetic(sentence: str) -> bool:
    """Whether figures of the sentence may depend on each other ("four (4) times $105,000, equal to $420,000"):
    changing one of them would break a sum a reader checks, which is a different defect."""
    return len(quantities(sentence)) > 1 and _ARITHMETIC.search(sentence) is not None


def _actors(doc: ParsedContract, sentence: str, entities: Mapping[str, int]) -> frozenset[int]:
    """The parties a provision names, as entities ("Ferrer" and "Supplier" are one)."""
    return frozenset(entities[p] for p in entities if re.search(rf"(?<![\w\-]){term_pattern(p)}(?![\w\-])", sentence))


def _counted(text: str, end: int) -> str:
    """What a figure counts: the word after it ("days", "copies"), or nothing (an amount)."""
    m = re.match(r"\s*([A-Za-z]+)", text[end:end + 20])
    return m.group(1).lower().rstrip("s") if m else ""


_OBLIGATION = re.compile(r"(?:\b(?:The|Each|Either|each|either)\s+)?(?<![\w\-])"
                         r"(?P<party>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,2}|party)\s+(?:shall|will|must|agrees\s+to)\b")


def inconsistent_language(doc: ParsedContract, style: DraftingStyle, rng: random.Random,
                          entities: Mapping[str, int]) -> list[Injection]:
    """Two provisions that must agree, made to disagree in a figure: a figure restated elsewhere in the same
    words, for the same parties (changed in one place), or one party's obligation stated a second time in
    the same article with another figure. The new figure agrees with what it counts; a sentence whose figures
    depend on each other is left alone."""
    text = doc.text
    sentences: list[tuple[int, int, list[tuple[int, int, str]]]] = []
    seen: set[int] = set()
    for start, end, _ in quantities(text):
        s, e = _provision(text, *sentence_bounds(text, start))
        if s in seen or not _editable(doc, start, end):
            continue
        seen.add(s)
        found = [(s + a, s + b, v) for a, b, v in quantities(text[s:e])]
        if found and 40 <= e - s <= 800 and not _arithmetic(text[s:e]):
            sentences.append((s, e, found))
    defining = {s for s, e, _ in sentences if any(s <= d.start < e for d in doc.definitions)}
    out: list[Injection] = []
    words = {s: _content_words(text[s:e]) for s, e, _ in sentences}
    actors = {s: _actors(doc, text[s:e], entities) for s, e, _ in sentences}
    for i, (s1, _, q1) in enumerate(sentences):
        for s2, _, q2 in sentences[i + 1:]:
            if doc.location(q1[0][0]) == doc.location(q2[0][0]) or actors[s1] != actors[s2]:
                continue  # one party's provision against another's need not agree
            union = words[s1] | words[s2]
            if not union or len(words[s1] & words[s2]) / len(union) < 0.45:
                continue
            figures = {(v, _counted(text, b)) for _, b, v in q2}
            shared = [q for q in q1 if (q[2], _counted(text, q[1])) in figures]
            if not shared:
                continue
            start, end, _ = rng.choice(shared)
            new = shift_in_agreement(text, start, end, rng.randrange(3))
            if new is not None:
                out.append(Injection("inconsistent_language", start, new[0], new[1],
                                     {"location": doc.location(start), "location_2": doc.location(q2[0][0])},
                                     subject=f"sentence:{s1}"))
    rng.shuffle(out)
    # One party's obligation stated twice: restated at the end of another section of its article.
    sections = _leaf_sections(doc)
    restated = []
    for s, e, found in sentences:
        sentence = text[s:e].strip()
        if not sentence[:1].isupper() or not sentence.endswith(".") or "\n\n" in sentence or s in defining:
            continue  # a provision that defines a term would be a second definition if restated
        bound = [m.group("party") for m in _OBLIGATION.finditer(sentence)]
        if not bound or not all(p in entities or p.lower() in ("party", "parties") for p in bound) or len(
                {entities.get(p, -1) for p in bound}) != 1 or len(actors[s]) > 1:
            continue  # one party's (or each party's) obligation, no other party's in the same sentence
        here = doc.section_at(s)
        if here is None:
            continue
        article = here.number.split(".")[0]
        others = [x for x in sections if x is not here and not (x.start <= s < x.end) and abs(x.start - s) > 200]
        near = [x for x in others if x.number.split(".")[0] == article]
        if not near:  # a contract numbered without articles: the sections next to it
            near = sorted(others, key=lambda x: abs(x.start - s))[:2]
            near = [x for x in near if abs(x.start - s) < 6_000]
        if not near:
            continue
        start, end, _ = rng.choice(found)
        new = shift_in_agreement(text, start, end, rng.randrange(3))
        if new is None:
            continue
        changed = " ".join((text[s:start] + new[1] + text[new[0]:e]).split())
        for section in rng.sample(near, min(ALTERNATIVES, len(near))):
            point = _insertion_point(doc, section)
            restated.append(Injection("inconsistent_language", point, point, f" {changed}",
                                      {"location": doc.location(point - 1), "location_2": doc.location(found[0][0])},
                                      subject=f"sentence:{s}"))
    # One restatement per sentence in the order; its alternatives follow it.
    order = list(dict.fromkeys(i.subject for i in restated))
    rng.shuffle(order)
    rank = {subject: n for n, subject in enumerate(order)}
    restated.sort(key=lambda i: rank[i.subject])
    return out + _alternating(definition_against_use(doc, style, rng, entities), restated)


_USE_FOLLOWS = re.compile(r"[ \t]+(?!of\b|as\b|for\b|to\b|in\b|which\b|that\b|hereunder\b)[a-z]{2,}\b|[,;]")


def definition_against_use(doc: ParsedContract, style: DraftingStyle, rng: random.Random,
                           entities: Mapping[str, int]) -> list[Injection]:
    """A defined term against its use: where a term stands for one figure (its definition states a period, an
    amount or a date, and the term is named for it: "Initial Term", "License Fee", "Effective Date"), a use of the
    term in another section is made to restate it with another figure. A use that already restates it ("the
    Initial Term of three (3) years") gets its figure changed; failing one, a use (`the Initial Term shall ...`)
    gets the restatement added (`the Initial Term of two (2) years shall ...`). Both provisions must agree by the
    definition itself; gold: the use and the definition."""
    text = doc.text
    changed: list[Injection] = []
    added: list[Injection] = []
    for term, definitions in doc.terms.items():
        if len(definitions) != 1 or term in doc.party_terms:
            continue  # a term defined twice has no one figure to agree with
        d = definitions[0]
        fig = defined_figure(d)
        if fig is None or not _in_body(doc, d.start):
            continue
        subject = f"definition-use:{term}"
        for m in re.finditer(rf"(?<![\w\-]){term_pattern(term)}(?![\w\-])", text):
            at = m.start()
            if (d.start - 1 <= at <= d.body_end or doc.location(at) == d.location or not _editable(doc, at, m.end())
                    or in_heading(text, at) or not re.search(r"\bthe\s+$", text[max(0, at - 6):at], re.IGNORECASE)):
                continue
            s, e = sentence_bounds(text, at)
            if _arithmetic(text[s:e]) or any(s <= other.start < e for other in doc.definitions):
                continue  # a sum a reader checks, or a sentence that defines a term (a second definition)
            restated = [(s + a, s + b, v) for a, b, v in restatements(term, text[s:e]) if a >= m.end() - s]
            if restated and restated[0][0] - m.end() <= 40:
                start, end, value = restated[0]
                if value != fig.value:
                    continue  # restates something else (a renewal, a part of it)
                new = shift_in_agreement(text, start, end, rng.randrange(3))
                if new is not None and _editable(doc, start, new[0]):
                    changed.append(Injection("inconsistent_language", start, new[0], new[1],
                                             {"location": doc.location(start), "location_2": d.location},
                                             subject=subject))
                continue
            if restatements(term, text[s:e]) or not _USE_FOLLOWS.match(text, m.end()):
                continue
            phrase = shift_quantity(fig.text, fig.start, fig.end, rng.randrange(3))
            if phrase is None:
                continue
            if fig.kind == "period":  # the unit, in number with the new figure ("one (1) year", "two (2) years")
                qualifier = re.match(r"[ \t]+((?:calendar|business)[ \t]+)?", fig.text[fig.end:])
                count = int(re.findall(r"\d+", phrase)[-1])
                unit = fig.counts if count == 1 else f"{fig.counts}s"
                phrase += f" {qualifier.group(1) or '' if qualifier else ''}{unit}"
            added.append(Injection("inconsistent_language", m.end(), m.end(), f" of {' '.join(phrase.split())}",
                                   {"location": doc.location(at), "location_2": d.location}, subject=subject))
    rng.shuffle(changed)
    rng.shuffle(added)
    return changed + added


def _alternating(first: list[Injection], second: list[Injection]) -> list[Injection]:
    """Both lists' defects taken in turn (each defect with its alternatives, which share its subject), so one kind
    does not fill a contract's share alone."""
    def groups(items: list[Injection]) -> list[list[Injection]]:
        by: dict[str | None, list[Injection]] = {}
        for i in items:
            by.setdefault(i.subject, []).append(i)
        return list(by.values())

    a, b = groups(first), groups(second)
    out: list[Injection] = []
    for n in range(max(len(a), len(b))):
        for g in (a, b):
            if n < len(g):
                out += g[n]
    return out


CandidateMaker = Callable[[ParsedContract, DraftingStyle, random.Random, Mapping[str, int]], list[Injection]]
CANDIDATES: dict[CategoryKey, CandidateMaker] = {
    "undefined_capitalized_terms": undefined_capitalized,
    "uncapitalized_defined_terms": uncapitalized_defined,
    "unused_defined_terms": unused_defined,
    "incorrect_section_references": section_references,
    "incorrect_party_references": party_references,
    "incorrectly_capitalized_terms": incorrectly_capitalized,
    "terms_defined_multiple_times": duplicate_definitions,
    "inconsistent_language": inconsistent_language,
}


def candidates(doc: ParsedContract, style: DraftingStyle, seed: str,
               parties: AnnotatedParties | None = None) -> dict[CategoryKey, Iterator[Injection]]:
    """The candidates of every error category, each category in its own seeded order. `parties` (CUAD's
    annotation of the contract's parties) tells which names are one party."""
    entities = party_entities(doc, parties)
    return {key: iter(make(doc, style, random.Random(f"{seed}|{key}"), entities)) for key, make in CANDIDATES.items()}


def apply(text: str, injections: list[Injection]) -> tuple[str, list[tuple[Injection, int, int]]]:
    """The text with every injection applied, and where each one's text ends up."""
    pieces = []
    placed = []
    cursor = 0
    shift = 0
    for inj in sorted(injections, key=lambda i: (i.start, i.end)):
        pieces.append(text[cursor:inj.start])
        pieces.append(inj.replacement)
        new_start = inj.start + shift
        placed.append((inj, new_start, new_start + len(inj.replacement)))
        shift += len(inj.replacement) - (inj.end - inj.start)
        cursor = inj.end
    pieces.append(text[cursor:])
    return "".join(pieces), placed
