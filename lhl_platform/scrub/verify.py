"""The verifier: an injected defect is kept only if it holds in the finished item.

`verify_item` re-reads a built item from scratch (its text, its gold, its source text) and rejects every
injected gold tuple that does not hold, with a reason. It knows nothing of how the injector chose its edits,
so it can check a set built by anyone in the release format.

The item as a whole:
- the source comes back: undoing every edit gives the source text byte for byte (`not_undoable`), and the
  source's SHA-256 is the recorded one (`source_hash_mismatch`);
- the structure stands: the edits add or remove no numbered section (`structure_changed`);
- derived terms: the `defined_terms` gold is what the definition parser reads in the text
  (`defined_terms_not_derived`).

Every injected tuple: at least `MIN_GAP` (150) characters after the edit before it (`edits_too_close`), so a
reviewer reads each in clean context; its location is where its edit sits (`location_mismatch`), and no later
section's heading, read by a simpler rule than the parser's (`headings`), stands between the start of that
section and the edit (`location_not_containing`: the parser misread the numbering, so the location would be
wrong); its edit reads as a lawyer's draft (below), and its category's defect holds:
- `unused_defined_terms`: the term is parsed as defined in the added text (`unused_term_not_defined`), its words
  are words of the source (`term_not_words`) and it occurs exactly once, in any case or form
  (`unused_term_occurs_elsewhere`);
- `undefined_capitalized_terms`: the edit capitalises the phrase (`not_a_capitalisation`); the term is not
  defined, quoted or said to be defined anywhere (`undefined_term_is_defined`) and is not written with capitals
  anywhere else (`undefined_term_used_elsewhere`); it is no verb and its object (`to Hire Personnel`:
  `undefined_term_is_verb_phrase`) and every word of it is written elsewhere in the source (`term_not_words`: not
  CUAD's run-together "Usesuch");
- `uncapitalized_defined_terms`: the term is defined (`term_not_defined`), the edit lower-cases it
  (`not_a_lower_casing`), and a capitalised usage is left (`last_capitalised_usage`: otherwise it would also be
  an unused term nobody annotated);
- `incorrectly_capitalized_terms`: the term is a form of a defined term (`term_not_defined`), the edit
  capitalises it (`not_a_capitalisation`), and the word before it shows another thing is meant, outside the
  term's own definition (`no_contrast_context`), and the term is not defined broadly enough to cover it
  ("similar Applicable Laws", "similar Rights": `definition_covers_it`, `document.names_a_class`);
- `incorrect_section_references`: the reference is read as the wrong number (`reference_not_parsed`); both the
  written and the correct section exist (`reference_target_missing`), differ and do not contain each other
  (`reference_points_to_related_section`); the wrong number is not cited right next to it already
  (`reference_doubled`); the recorded distance is the distance from the reference to the start of the correct
  section (`distance_mismatch`);
- `incorrect_party_references`: both names are parties (`not_a_party`), the edit swaps them (`not_a_party_swap`)
  and the party is not named twice in a row (`party_doubled`);
- `terms_defined_multiple_times`: the term is defined at both locations (`definitions_missing`), neither
  definition is limited to a section (`definition_scoped`), and the two differ in a figure, a date or a party
  (`definitions_do_not_conflict`);
- `inconsistent_language`: a sentence at location_2 says the same thing (shares most words) with a different
  figure or date, or location_2 defines a term for one figure that the edited sentence restates, beside a use of
  the term, with another (`no_contradicting_passage`).

A lawyer's draft: no quote, dash or symbol the contract never uses (`style_foreign_character`); balanced quotes
and parentheses (`style_unbalanced`); an amount the edit touches written in words and figures that agree
(`style_amount_mismatch`: not "One Million Dollars ($1,500,000)"); no doubled spaces or punctuation at the seams
(`style_spacing`); no lowercase sentence start (`style_sentence_start`); an added sentence starts with a capital,
ends with a full stop, follows a full stop and has a verb (`style_sentence`; a defined term's figure restated
beside a use of the term is a phrase, `of two (2) years`); a change of case keeps the number of words
(`style_word_count`) and a capitalised phrase is in title case (`style_casing`); the words the injector wrote
itself are neither a defined term in lowercase nor capitalised and undefined (`style_creates_defect`).

The report of a build (`VerifierReport`) counts what was kept and what was rejected, why, with examples.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from lhl_platform.scrub.amounts import mismatches
from lhl_platform.scrub.categories import CATEGORY_KEYS, CategoryKey
from lhl_platform.scrub.document import ParsedContract, parse_contract, term_forms, term_pattern
from lhl_platform.scrub.figures import against_definition, defined_figure, restatements
from lhl_platform.scrub.headings import later_heading
from lhl_platform.scrub.items import GoldFinding, ScrubItem, bucket_names, distance_bucket, undo_edits
from lhl_platform.scrub.phrases import not_words, verb_phrase
from lhl_platform.scrub.records import LONG_DISTANCE as LONG_DISTANCE  # with the payload fields that use them
from lhl_platform.scrub.records import MIN_GAP, ReasonCount, VerifierReport
from lhl_platform.scrub.records import VERIFIER_VERSION as VERIFIER_VERSION
from lhl_platform.scrub.style import quantities, sentence_bounds, starts_sentence


class Rejection(BaseModel):
    """An injected defect that does not hold, or (gold_index None) a problem of the whole item."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    contract_id: str
    category: CategoryKey | None
    reason: str
    detail: str
    gold_index: int | None = None


def report(items: Sequence[ScrubItem], rejections: Iterable[Rejection], examples: int = 3) -> VerifierReport:
    """Aggregate the rejections met while building `items` (the kept set)."""
    grouped: dict[tuple[CategoryKey | None, str], list[str]] = {}
    for r in rejections:
        grouped.setdefault((r.category, r.reason), []).append(f"{r.contract_id}: {r.detail}")
    kept: Counter[str] = Counter(g.category for item in items for g in item.gold if g.edit is not None)
    distances = [g.distance for item in items for g in item.gold if g.distance is not None]
    buckets = dict.fromkeys(bucket_names(), 0)
    for d in distances:
        buckets[distance_bucket(d)] += 1
    order: dict[str, int] = {k: i for i, k in enumerate(CATEGORY_KEYS)}
    return VerifierReport(
        items=len(items), kept={k: kept.get(k, 0) for k in CATEGORY_KEYS if k != "defined_terms"},
        rejected=tuple(ReasonCount(category=c, reason=r, count=len(x), examples=tuple(x[:examples]))
                       for (c, r), x in sorted(grouped.items(), key=lambda kv: (order.get(kv[0][0] or "", -1),
                                                                               kv[0][1]))),
        section_reference_distances=buckets, longest_section_reference=max(distances, default=None),
        references_past_long_distance=sum(d > LONG_DISTANCE for d in distances))


# --- the checks -------------------------------------------------------------------------------------------

Problem = tuple[str, str]  # (reason, detail)


def _count_anywhere(text: str, term: str) -> int:
    """Occurrences of the term in any case and any of its forms."""
    pattern = "|".join(term_pattern(f) for f in term_forms(term))
    return len(re.findall(rf"(?<![\w\-])(?:{pattern})(?![\w\-])", text, flags=re.IGNORECASE))


def _defined(doc: ParsedContract, term: str) -> bool:
    return any(f.lower() in doc.lower_forms for f in term_forms(term))


def _unused(g: GoldFinding, start: int, end: int, doc: ParsedContract, source: str) -> list[Problem]:
    term = str(g.term)
    if not_words(source, term, least=1):
        return [("term_not_words", f"{', '.join(not_words(source, term, least=1))!r} is nowhere in the source")]
    if not any(d.term == term and start <= d.start < end for d in doc.definitions):
        return [("unused_term_not_defined", f"{term!r} is not parsed as defined in the added text")]
    count = _count_anywhere(doc.text, term)
    if count != 1:
        return [("unused_term_occurs_elsewhere", f"{term!r} occurs {count} times")]
    return []


@lru_cache(maxsize=4096)
def _capitalised_use(text: str, term: str) -> tuple[bool, tuple[int, ...]]:
    """Whether `term` is defined, quoted or said to be defined in `text`, and where it is written with capitals
    (computed once per term of an item, however many occurrences of it were injected)."""
    defined = bool(re.search(rf"[\"“]{term_pattern(term)}[\"”]|{term_pattern(term)}\s*\(as\s+defined", text,
                             flags=re.IGNORECASE))
    pattern = rf"(?<![\w\-])(?:{'|'.join(term_pattern(f) for f in term_forms(term))})(?![\w\-])"
    return defined, tuple(m.start() for m in re.finditer(pattern, text))


def _undefined_capitalised(g: GoldFinding, start: int, end: int, original: str, doc: ParsedContract,
                           injected_at: set[int], undo_text: str) -> list[Problem]:
    term = str(g.term)
    written = " ".join(doc.text[start:end].split())
    if written != term or " ".join(original.split()).lower() != term.lower() or original == doc.text[start:end]:
        return [("not_a_capitalisation", f"{original!r} -> {doc.text[start:end]!r} for {term!r}")]
    quoted, uses = _capitalised_use(doc.text, term)
    if _defined(doc, term) or quoted:
        return [("undefined_term_is_defined", f"{term!r} is defined or quoted in the contract")]
    elsewhere = [at for at in uses if at not in injected_at]
    if elsewhere:
        return [("undefined_term_used_elsewhere", f"{term!r} is written with capitals at {elsewhere[0]}")]
    if verb_phrase(doc.text, start):
        return [("undefined_term_is_verb_phrase", f"{term!r} follows a verb's 'to' or a modal")]
    if not_words(undo_text, term):
        return [("term_not_words", f"{', '.join(not_words(undo_text, term))!r} is written nowhere else")]
    return []


def _uncapitalised(g: GoldFinding, start: int, end: int, original: str, doc: ParsedContract) -> list[Problem]:
    term = str(g.term)
    if term not in doc.terms:
        return [("term_not_defined", f"{term!r} is not a defined term")]
    if " ".join(original.split()) != term or doc.text[start:end] != original.lower():
        return [("not_a_lower_casing", f"{original!r} -> {doc.text[start:end]!r} for {term!r}")]
    if not doc.usages.get(term):
        return [("last_capitalised_usage", f"no capitalised usage of {term!r} is left")]
    return []


def _capitalised_in_context(g: GoldFinding, start: int, end: int, original: str, doc: ParsedContract) -> list[Problem]:
    term = str(g.term)  # as written: the defined term or one of its forms (a plural)
    defined = next((t for t in doc.terms if term in term_forms(t)), None)
    if defined is None:
        return [("term_not_defined", f"{term!r} is not a form of a defined term")]
    if " ".join(doc.text[start:end].split()) != term or " ".join(original.split()) != term.lower():
        return [("not_a_capitalisation", f"{original!r} -> {doc.text[start:end]!r} for {term!r}")]
    if doc.means_something_else(defined, start) is None:
        word = doc.text[max(0, start - 20):start].split()[-1:] or [""]
        return [("no_contrast_context", f"{word[0]!r} before {term!r} does not make it another thing")]
    if any(d.body_start <= start < d.body_end for d in doc.terms[defined]):
        return [("no_contrast_context", f"{term!r} sits in its own definition")]
    if defined != "Agreement" and doc.names_a_class(defined):
        return [("definition_covers_it", f"the definition of {defined!r} is broad enough to mean it")]
    return []


def _section_reference(g: GoldFinding, start: int, end: int, doc: ParsedContract) -> list[Problem]:
    wrong, correct = str(g.wrong), str(g.correct)
    ref = next((r for r in doc.references if r.start == start), None)
    if ref is None or ref.label != wrong:
        return [("reference_not_parsed", f"no reference reads {wrong!r} at the edit")]
    word = "Article" if ref.word.lower().startswith("article") and "." not in wrong else "Section"
    written, meant = doc.resolve(wrong, word), doc.resolve(correct, word)
    if written is None or meant is None:
        return [("reference_target_missing", f"section {wrong if written is None else correct!r} does not exist")]
    related = (written is meant or written.number.startswith(meant.number + ".")
               or meant.number.startswith(written.number + ".") or written.number.startswith(meant.number + "(")
               or meant.number.startswith(written.number + "("))
    if related:
        return [("reference_points_to_related_section", f"{wrong} and {correct} are the same or nested")]
    if any(r.label == wrong and r.start != start and abs(r.start - start) < 60 for r in doc.references):
        return [("reference_doubled", f"{wrong} is already cited next to it")]
    if g.distance is not None and g.distance != abs(meant.start - start):
        return [("distance_mismatch", f"recorded {g.distance}, measured {abs(meant.start - start)}")]
    return []


def _party_reference(g: GoldFinding, start: int, end: int, original: str, doc: ParsedContract) -> list[Problem]:
    wrong, correct = str(g.wrong), str(g.correct)
    if wrong not in doc.party_terms or correct not in doc.party_terms or wrong == correct:
        return [("not_a_party", f"{wrong!r} or {correct!r} is not a party of the contract")]
    if doc.text[start:end] != wrong or original != correct:
        return [("not_a_party_swap", f"{original!r} -> {doc.text[start:end]!r}")]
    name = re.escape(wrong)
    if (re.search(rf"{name}\s+(?:and|or)\s+$", doc.text[max(0, start - 60):start])
            or re.match(rf"(?:['’]s)?\s+(?:and|or)\s+{name}\b", doc.text[end:end + 60])):
        return [("party_doubled", f"{wrong} is named twice in a row")]
    return []


_SCOPED = re.compile(r"for\s+(?:the\s+)?purposes?\s+of\s+this\s+(?:section|article|paragraph|clause)|"
                     r"as\s+used\s+in\s+this\s+(?:section|article|paragraph|clause)", re.IGNORECASE)


def _figures(text: str, parties: Sequence[str]) -> tuple[set[str], set[str]]:
    values = {v for _, _, v in quantities(text)}
    named = {p for p in parties if re.search(rf"(?<![\w\-]){re.escape(p)}(?![\w\-])", text)}
    return values, named


def _repeated_definition(g: GoldFinding, start: int, end: int, doc: ParsedContract) -> list[Problem]:
    term = str(g.term)
    definitions = doc.terms.get(term, ())
    at = {d.location: d for d in definitions}
    if len(definitions) < 2 or g.location not in at or g.location_2 not in at:
        return [("definitions_missing", f"{term!r} is not defined at both {g.location} and {g.location_2}")]
    new = next((d for d in definitions if start <= d.start < end), None)
    old = next((d for d in definitions if d is not new and d.location in (g.location, g.location_2)), None)
    if new is None or old is None:
        return [("definitions_missing", f"the added definition of {term!r} is not parsed")]
    for d in (new, old):
        s, _ = sentence_bounds(doc.text, d.start, semicolons=True)
        if _SCOPED.search(doc.text[s:d.start]):
            return [("definition_scoped", f"the definition of {term!r} at {d.location} is limited to a section")]
    if _figures(new.body, doc.party_terms) == _figures(old.body, doc.party_terms):
        return [("definitions_do_not_conflict", f"both definitions of {term!r} state the same figures and parties")]
    return []


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3}


def _inconsistent(g: GoldFinding, start: int, end: int, doc: ParsedContract) -> list[Problem]:
    text = doc.text
    s1, e1 = sentence_bounds(text, start + (1 if text[start:start + 1].isspace() else 0))
    mine = text[s1:e1]
    values = {v for _, _, v in quantities(mine)}
    words = _words(re.sub(r"\d", " ", mine))
    for d in doc.definitions:  # a definition against its use: the use restates the defined figure differently
        fig = defined_figure(d) if d.location == g.location_2 else None
        if fig is not None and any(against_definition(fig, mine, a, b) for a, b, _ in restatements(d.term, mine)):
            return []
    for section in doc.sections:
        if section.label != g.location_2:
            continue
        offset = section.start
        while offset < section.end:
            s2, e2 = sentence_bounds(text, offset)
            other = text[s2:e2]
            if s2 != s1 and e2 > s2:
                theirs = _words(re.sub(r"\d", " ", other))
                union = words | theirs
                other_values = {v for _, _, v in quantities(other)}
                if union and len(words & theirs) / len(union) >= 0.45 and other_values and other_values != values:
                    return []
            offset = max(e2, offset + 1)
    if g.location_2 in ("P", "R") or not any(s.label == g.location_2 for s in doc.sections):
        return [("no_contradicting_passage", f"no section {g.location_2} to contradict")]
    return [("no_contradicting_passage", f"nothing at {g.location_2} states the same with another figure")]


_RESTATED_FIGURE = re.compile(r" of (?:[a-z\-]+ \(\d{1,6}\) (?:calendar |business )?(?:day|week|month|year)s?|"
                              r"\d{1,6} (?:calendar |business )?(?:day|week|month|year)s?|\$[\d,]+(?:\.\d\d)?|"
                              r"[A-Z][a-z]+ \d{1,2}, \d{4})")


def _style(final: str, source_chars: set[str], start: int, end: int, original: str, g: GoldFinding,
           doc: ParsedContract) -> list[Problem]:
    injected = final[start:end]
    foreign = sorted({c for c in injected if c not in source_chars and not (c.isascii() and c.isalnum())})
    if foreign:  # a quote, dash or symbol the contract never writes (a short contract may lack some letters)
        return [("style_foreign_character", f"{''.join(foreign)!r} never appears in the contract")]
    if injected.count("(") != injected.count(")") or injected.count('"') % 2 or injected.count("“") != injected.count(
            "”"):
        return [("style_unbalanced", f"unbalanced quotes or parentheses in {injected[:60]!r}")]
    disagreeing = mismatches(final, start, end)
    if disagreeing:  # "One Million Dollars ($1,500,000)"
        return [("style_amount_mismatch", f"words and figures disagree in {disagreeing[0][1]!r}")]
    seams = final[max(0, start - 1):end + 1]
    if re.search(r"[ \t]{2}|\s[,.;:](?!\d)|[,;:]{2}|,\.|\.\.(?!\.)|\(\s|\s\)", seams) and not re.search(
            r"[ \t]{2}|\s[,.;:]|[,;:]{2}", original):
        return [("style_spacing", f"spacing or punctuation at {seams[:60]!r}")]
    if not original and g.category == "inconsistent_language" and _RESTATED_FIGURE.fullmatch(injected):
        return []  # a defined term's figure restated beside a use of it ("Term of two (2) years"): a phrase
    if not original:  # an added sentence
        sentence = injected.strip()
        if (not sentence.lstrip("\"“")[:1].isupper() or not sentence.endswith(".") or final[start - 1:start] != "."
                or not re.search(r"\b(?:means|mean|shall|may|will|must|is|are|has|have)\b", sentence)
                or len(sentence.split()) < 6):
            return [("style_sentence", f"{sentence[:60]!r} is not a full sentence after a full stop")]
        if g.category == "unused_defined_terms":
            return _creates_defect(sentence, g, doc)
        return []
    first = injected.lstrip()[:1]
    if first.islower() and starts_sentence(final, start):
        return [("style_sentence_start", f"{injected!r} starts a sentence in lowercase")]
    if g.category in ("undefined_capitalized_terms", "uncapitalized_defined_terms",
                      "incorrectly_capitalized_terms") and len(injected.split()) != len(original.split()):
        return [("style_word_count", f"{original!r} -> {injected!r}")]
    if g.category == "undefined_capitalized_terms" and any(
            w[:1].islower() and w not in ("of", "and", "or", "the", "for", "in", "to") for w in injected.split()):
        return [("style_casing", f"{injected!r} is not in title case")]
    return []


def _creates_defect(sentence: str, g: GoldFinding, doc: ParsedContract) -> list[Problem]:
    """Words the injector wrote itself must not be defects nobody annotated."""
    own = sentence.replace(str(g.term), " ")
    for term in doc.terms:
        if re.search(rf"(?<![\w\-])(?:{'|'.join(term_pattern(f.lower()) for f in term_forms(term))})(?![\w\-])", own):
            return [("style_creates_defect", f"{term.lower()!r} is a defined term in lowercase")]
    allowed = {"Section", "Article", "For", "As", "Agreement", "Party", "Contract"} | set(doc.terms)
    for m in re.finditer(r"(?<![\w\-])[A-Z][a-z]+", own):
        word = m.group()
        if m.start() > 0 and word not in allowed and not any(word in t.split() for t in doc.terms):
            return [("style_creates_defect", f"{word!r} is capitalised but not defined")]
    return []


def verify_item(item: ScrubItem, source_text: str) -> list[Rejection]:
    """Every injected gold tuple of `item` that does not hold, and any problem of the item as a whole."""
    def whole(reason: str, detail: str) -> Rejection:
        return Rejection(contract_id=item.contract_id, category=None, reason=reason, detail=detail)

    if undo_edits(item) != source_text:
        return [whole("not_undoable", "undoing the edits does not give the source text back")]
    if item.source is not None and hashlib.sha256(source_text.encode("utf-8")).hexdigest() != item.source.sha256:
        return [whole("source_hash_mismatch", "the source text's SHA-256 is not the recorded one")]
    doc = parse_contract(item.text)
    source_doc = parse_contract(source_text)
    problems: list[Rejection] = []
    if [s.number for s in doc.sections] != [s.number for s in source_doc.sections]:
        problems.append(whole("structure_changed", "the edits add or remove a numbered section"))
    derived = Counter((d.term, d.location) for d in doc.definitions)
    stated = Counter((str(g.term), str(g.location)) for g in item.gold if g.category == "defined_terms")
    if derived != stated:
        missing = sorted((derived - stated).elements())[:3]
        extra = sorted((stated - derived).elements())[:3]
        problems.append(whole("defined_terms_not_derived", f"parsed but not in the gold: {missing}; "
                                                           f"in the gold but not parsed: {extra}"))
    source_chars = set(source_text)
    injected_at = {g.edit.start for g in item.gold
                   if g.edit is not None and g.category == "undefined_capitalized_terms"}
    spans = sorted((g.edit.start, g.edit.end) for g in item.gold if g.edit is not None)
    for index, g in enumerate(item.gold):
        if g.edit is None:
            continue
        start, end, original = g.edit.start, g.edit.end, g.edit.original
        found = _style(item.text, source_chars, start, end, original, g, doc)
        before = [e for s, e in spans if (s, e) < (start, end) and start - e < MIN_GAP]
        if not found and before:
            found = [("edits_too_close", f"{start - before[-1]} characters after another edit (at least {MIN_GAP})")]
        if not found:
            at = start + len(item.text[start:end]) - len(item.text[start:end].lstrip())
            if g.category != "terms_defined_multiple_times" and doc.location(at) != g.location:
                found = [("location_mismatch", f"gold says {g.location}, the edit is at {doc.location(at)}")]
            elif g.category == "terms_defined_multiple_times" and doc.location(at) not in (g.location, g.location_2):
                found = [("location_mismatch", f"the added definition is at {doc.location(at)}")]
            elif (later := later_heading(doc, doc.location(at), at)) is not None:
                found = [("location_not_containing", f"a heading {later} stands between the start of "
                                                     f"{doc.location(at)} and the edit")]
        if not found:
            found = _category_check(g, start, end, original, doc, injected_at, source_text)
        problems += [Rejection(contract_id=item.contract_id, category=g.category, reason=reason, detail=detail,
                               gold_index=index) for reason, detail in found]
    return problems


def _category_check(g: GoldFinding, start: int, end: int, original: str, doc: ParsedContract,
                    injected_at: set[int], source: str) -> list[Problem]:
    if g.category == "unused_defined_terms":
        return _unused(g, start, end, doc, source)
    if g.category == "undefined_capitalized_terms":
        return _undefined_capitalised(g, start, end, original, doc, injected_at, source)
    if g.category == "uncapitalized_defined_terms":
        return _uncapitalised(g, start, end, original, doc)
    if g.category == "incorrectly_capitalized_terms":
        return _capitalised_in_context(g, start, end, original, doc)
    if g.category == "incorrect_section_references":
        return _section_reference(g, start, end, doc)
    if g.category == "incorrect_party_references":
        return _party_reference(g, start, end, original, doc)
    if g.category == "terms_defined_multiple_times":
        return _repeated_definition(g, start, end, doc)
    if g.category == "inconsistent_language":
        return _inconsistent(g, start, end, doc)
    return [("not_an_error_category", f"{g.category} tuples are derived, never injected")]
