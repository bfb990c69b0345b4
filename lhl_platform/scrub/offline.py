"""Two offline models of the ContractScrub task, named for what they are.

**`rules`: a rule-based scrubber**, a baseline that reads the contract as a careful junior would with a
checklist (it never sees the gold):
- defined terms: the definition registry (`document`'s parser, the same parser that derives that category's
  gold, so its score there is 1.0 by construction and says nothing);
- undefined capitalised terms: capitalised phrases mid-sentence whose last word the contract also writes in
  lowercase (a common noun, not a name), that are neither defined nor a party, a heading or a reference;
- uncapitalised defined terms: lowercase occurrences of a multi-word defined term, or of a one-word term after
  `the`, `such`, `said`, `this` or `each`, outside contexts that mean something else;
- unused defined terms: terms with no usage outside their definitions;
- incorrectly capitalised terms: capitalised defined terms after a word that means something else
  (`third Party`, `any other Agreement`);
- repeated definitions: terms defined twice whose definitions differ in a figure, date or party;
- section references: a resolved reference whose context shares clearly more words with the heading and
  opening of a sibling section than with the section it names;
- party references: a party that does something (`shall pay`) only the other party does elsewhere, or that
  acts on itself (`Licensor shall pay Licensor`);
- inconsistent language: two sentences in different sections that share most of their words but state
  different figures or dates.

**`calibration`: a calibration tool**, not a model: it reads the gold and returns it with findings dropped and
false ones added at declared rates per category (seeded by profile, run, contract and category, so a run is
reproducible and independent of the order of calls). Scoring must recover the declared rates: recall 1 - miss,
false positives per gold tuple `extra`. The false findings are built to match no gold tuple of their contract
and category (a term or section pair the gold does not have).

Both are plain functions `answer(task) -> output model` (the calibration tool's bound to the gold it reads);
the platform wraps them with `OfflineModel(model_id, VERSION, answer)`.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.providers.base import Task
from lhl_platform.scrub.categories import BY_KEY, CATEGORY_KEYS, CategoryKey
from lhl_platform.scrub.document import ParsedContract, parse_contract, term_forms
from lhl_platform.scrub.items import Finding, ScrubItem
from lhl_platform.scrub.normalize import finding_key
from lhl_platform.scrub.style import in_heading, mostly_upper, quantities, sentence_bounds, starts_sentence
from lhl_platform.scrub.task import OUTPUTS, ScrubTask
from lhl_platform.scrub.vocabulary import PARTY_VERBS

RULES_VERSION = "scrub-rules-v1"
CALIBRATION_VERSION = "scrub-calibration-v1"


class ScrubTaskError(ValueError):
    """An offline scrub model asked to answer something that is not a scrub task."""


def _scrub_task(task: Task) -> ScrubTask:
    if not isinstance(task, ScrubTask):
        raise ScrubTaskError(f"the offline scrubbers answer scrub tasks only, not {task.kind!r}")
    return task


def _output(category: CategoryKey, findings: list[Finding]) -> BaseModel:
    rows = [{name: getattr(f, name) for name in f.fields()} for f in findings]
    return OUTPUTS[category].model_validate({"findings": rows})


# --- the rule-based scrubber ------------------------------------------------------------------------------

@lru_cache(maxsize=32)
def _parsed(text: str) -> ParsedContract:
    """One parse per contract for its nine calls (calls of one contract come together)."""
    return parse_contract(text)


def _prose(doc: ParsedContract, start: int, end: int) -> bool:
    text = doc.text
    line_start = text.rfind("\n", 0, start) + 1
    return not (in_heading(text, start) or mostly_upper(text, max(line_start, start - 60), min(len(text), end + 60)))


def _defined_terms(doc: ParsedContract) -> list[Finding]:
    return [Finding(category="defined_terms", term=d.term, location=d.location) for d in doc.definitions]


_CAPITALISED = re.compile(r"(?<![\w\-\"“'’])[A-Z][a-z]+(?:[\-][A-Za-z]+)?(?:\s+(?:of\s+|and\s+)?[A-Z][a-z]+"
                          r"(?:-[A-Za-z]+)?){0,3}(?![\w\-])")
_REFERENCE_WORDS = {"section", "sections", "article", "articles", "exhibit", "exhibits", "schedule", "schedules",
                    "annex", "appendix", "attachment", "paragraph", "clause", "page"}
_NAMES = {"january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}


def _undefined_capitalised(doc: ParsedContract) -> list[Finding]:
    text = doc.text
    lowercase = set(re.findall(r"(?<![A-Za-z])[a-z]+(?![A-Za-z])", text))
    defined = {f.lower() for t in doc.terms for f in term_forms(t)}
    party_words = {w for p in doc.party_terms for w in p.split()}
    out = []
    for m in _CAPITALISED.finditer(text):
        phrase = " ".join(m.group().split())
        words = phrase.split()
        if (phrase.lower() in defined or words[-1].lower() not in lowercase or words[0].lower() in _REFERENCE_WORDS
                or any(w.lower() in _NAMES or w in party_words for w in words) or starts_sentence(text, m.start())
                or not _prose(doc, m.start(), m.end()) or doc.in_definition_quotes(m.start(), m.end())):
            continue
        if any(phrase.lower() in f or f in phrase.lower() for f in defined if " " in f) or phrase in ("This", "The"):
            continue  # a piece of a defined term, or a defined term inside the phrase
        if re.match(r"\s*\(as\s+defined|\s*\((?:the\s+)?[\"“]", text[m.end():m.end() + 20]):
            continue
        out.append(Finding(category="undefined_capitalized_terms", term=phrase, location=doc.location(m.start())))
    return out


_DEFINITE = {"the", "such", "said", "this", "each"}


def _uncapitalised(doc: ParsedContract) -> list[Finding]:
    text = doc.text
    out = []
    for term, spans in doc.lowercase_usages.items():
        bodies = [(d.body_start, d.body_end) for d in doc.terms[term]]
        for start, end in spans:
            if " ".join(text[start:end].split()) != term.lower() or not _prose(doc, start, end):
                continue
            if any(s <= start < e for s, e in bodies) or doc.means_something_else(term, start) is not None:
                continue
            before = re.search(r"([A-Za-z]+)\s+$", text[max(0, start - 20):start])
            if " " not in term and (before is None or before.group(1).lower() not in _DEFINITE):
                continue  # a one-word term in lowercase is usually the ordinary word
            out.append(Finding(category="uncapitalized_defined_terms", term=term, location=doc.location(start)))
    return out


def _unused(doc: ParsedContract) -> list[Finding]:
    return [Finding(category="unused_defined_terms", term=term, location=definitions[0].location)
            for term, definitions in doc.terms.items() if not doc.usages.get(term)]


def _incorrectly_capitalised(doc: ParsedContract) -> list[Finding]:
    text = doc.text
    out = []
    for term, spans in doc.usages.items():
        for start, end in spans:
            if doc.means_something_else(term, start) is not None and _prose(doc, start, end):
                written = " ".join(text[start:end].split())
                out.append(Finding(category="incorrectly_capitalized_terms", term=written,
                                   location=doc.location(start)))
    return out


def _figures(text: str, parties: Sequence[str]) -> tuple[frozenset[str], frozenset[str]]:
    values = frozenset(v for _, _, v in quantities(text))
    named = frozenset(p for p in parties if re.search(rf"(?<![\w\-]){re.escape(p)}(?![\w\-])", text))
    return values, named


def _repeated(doc: ParsedContract) -> list[Finding]:
    out = []
    for term, definitions in doc.terms.items():
        for first, second in zip(definitions, definitions[1:], strict=False):
            if first.location != second.location and _figures(first.body, doc.party_terms) != _figures(
                    second.body, doc.party_terms):
                out.append(Finding(category="terms_defined_multiple_times", term=term, location=first.location,
                                   location_2=second.location))
    return out


_STOP = {"shall", "will", "this", "that", "with", "such", "from", "which", "have", "been", "under", "other", "party",
         "parties", "agreement", "section", "provided", "including", "upon", "into", "than", "there", "their", "then"}


def _content(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in _STOP}


def _section_references(doc: ParsedContract) -> list[Finding]:
    text = doc.text
    profiles: dict[str, set[str]] = {}

    def profile(number: str, start: int, end: int, heading: str) -> set[str]:
        if number not in profiles:
            profiles[number] = _content(heading) | _content(text[start:min(end, start + 400)])
        return profiles[number]

    out = []
    for ref in doc.references:
        target = ref.target
        if target is None or "(" in ref.label or doc.section_at(ref.start) is target:
            continue
        s, e = sentence_bounds(text, ref.start)
        context = _content(text[max(s, ref.start - 200):min(e, ref.end + 200)])
        named = re.match(r"\s*\(([A-Z][^()]{2,60})\)", text[ref.end:ref.end + 70])  # "Section 8.2 (Confidentiality)"
        if named:
            context |= _content(named.group(1))
        own = len(context & profile(target.number, target.start, target.end, target.heading))
        parent = target.number.rsplit(".", 1)[0] if "." in target.number else ""
        best, best_score = None, own
        for other in doc.sections:
            if other is target or other.depth != target.depth or "(" in other.number:
                continue
            if (other.number.rsplit(".", 1)[0] if "." in other.number else "") != parent:
                continue
            shared = len(context & profile(other.number, other.start, other.end, other.heading))
            if shared > best_score:
                best, best_score = other, shared
        if best is not None and best_score >= 3 and best_score >= 2 * own + 1:
            correct = best.label.removeprefix("Article ") if ref.word.lower().startswith("article") else best.number
            out.append(Finding(category="incorrect_section_references", wrong=ref.label, correct=correct,
                               location=ref.location))
    return out


def _party_references(doc: ParsedContract) -> list[Finding]:
    text = doc.text
    parties = list(doc.party_terms)
    if len(parties) < 2:
        return []
    actions: dict[str, Counter[str]] = {p: Counter() for p in parties}
    sites = []
    for party in parties:
        for start, end in doc.usages.get(party, ()):
            if text[start:end] != party:
                continue
            m = re.match(r"(?:['’]s)?\s+(shall|may|will|must|agrees\s+to)\s+(?:not\s+)?(?:promptly\s+)?([a-z]+)",
                         text[end:end + 60])
            if m is None or m.group(1).split()[0] not in PARTY_VERBS:
                continue
            verb = m.group(2)
            actions[party][verb] += 1
            sites.append((party, verb, start))
    out = []
    for party, verb, start in sites:
        others = [p for p in parties if p != party]
        other = max(others, key=lambda p: actions[p][verb])
        s, e = sentence_bounds(text, start)
        sentence = text[start:e]
        acts_on_itself = len(re.findall(rf"(?<![\w\-]){re.escape(party)}(?![\w\-])", sentence)) > 1 and not any(
            re.search(rf"(?<![\w\-]){re.escape(p)}(?![\w\-])", text[s:e]) for p in others)
        unusual = actions[party][verb] == 1 and actions[other][verb] >= 2
        if acts_on_itself or unusual:
            out.append(Finding(category="incorrect_party_references", wrong=party, correct=other,
                               location=doc.location(start)))
    return out


def _inconsistent(doc: ParsedContract) -> list[Finding]:
    text = doc.text
    sentences: dict[int, tuple[str, set[str], frozenset[str]]] = {}
    for start, _, _ in quantities(text):
        s, e = sentence_bounds(text, start)
        if s in sentences or not 40 <= e - s <= 900:
            continue
        values = frozenset(v for _, _, v in quantities(text[s:e]))
        sentences[s] = (doc.location(start), _content(re.sub(r"\d", " ", text[s:e])), values)
    out = []
    seen: set[tuple[str, str]] = set()
    rows = sorted(sentences.items())
    for i, (_, (loc1, words1, values1)) in enumerate(rows):
        for _, (loc2, words2, values2) in rows[i + 1:]:
            if loc1 == loc2 or (loc1, loc2) in seen or not words1 or not words2:
                continue
            overlap = len(words1 & words2) / len(words1 | words2)
            if overlap >= 0.5 and values1 != values2:
                seen.add((loc1, loc2))
                out.append(Finding(category="inconsistent_language", location=loc1, location_2=loc2))
    return out


_DETECTORS: dict[CategoryKey, Callable[[ParsedContract], list[Finding]]] = {
    "defined_terms": _defined_terms,
    "undefined_capitalized_terms": _undefined_capitalised,
    "uncapitalized_defined_terms": _uncapitalised,
    "unused_defined_terms": _unused,
    "incorrect_section_references": _section_references,
    "incorrect_party_references": _party_references,
    "incorrectly_capitalized_terms": _incorrectly_capitalised,
    "terms_defined_multiple_times": _repeated,
    "inconsistent_language": _inconsistent,
}


def rules_answer(task: Task) -> BaseModel:
    """The rule-based scrubber's answer to one (contract, category) task."""
    scrub = _scrub_task(task)
    return _output(scrub.category, _DETECTORS[scrub.category](_parsed(scrub.contract_text)))


# --- the calibration tool ---------------------------------------------------------------------------------

class CalibrationRates(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    miss: float = Field(ge=0, le=1, description="share of gold tuples dropped")
    extra: float = Field(ge=0, le=5, description="false findings added per gold tuple")


class CalibrationProfile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    description: str = ""
    seed: int = 0
    rates: dict[CategoryKey, CalibrationRates]

    def declared_recall(self, category: CategoryKey) -> float:
        return 1 - self.rates[category].miss


def _profile(name: str, description: str, seed: int,
             rates: dict[CategoryKey, tuple[float, float]]) -> CalibrationProfile:
    return CalibrationProfile(name=name, description=description, seed=seed,
                              rates={k: CalibrationRates(miss=rates[k][0], extra=rates[k][1]) for k in CATEGORY_KEYS})


# Declared (miss, extra) per category. `paper-gpt-5.5` follows the paper's GPT-5.5 row (recall 1 - miss, and
# `extra` = FP / gold from its per-category precision); `perfect` returns the gold itself.
PROFILES: dict[str, CalibrationProfile] = {
    "perfect": _profile("perfect", "the gold itself: every figure is 1.0", 0, dict.fromkeys(CATEGORY_KEYS, (0.0, 0.0))),
    "paper-gpt-5.5": _profile("paper-gpt-5.5", "per-category recall and false-positive rates of the paper's GPT-5.5",
                              11, {"defined_terms": (0.095, 0.126), "undefined_capitalized_terms": (0.486, 0.299),
                                   "uncapitalized_defined_terms": (0.132, 1.786),
                                   "unused_defined_terms": (0.064, 0.317),
                                   "incorrect_section_references": (0.24, 0.26),
                                   "incorrect_party_references": (0.438, 0.931),
                                   "incorrectly_capitalized_terms": (0.256, 0.775),
                                   "terms_defined_multiple_times": (0.247, 0.216),
                                   "inconsistent_language": (0.287, 2.184)}),
    "omitter": _profile("omitter", "misses half of everything, invents little", 23,
                        dict.fromkeys(CATEGORY_KEYS, (0.5, 0.05))),
}


def _unit(*parts: object) -> float:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class CalibrationTool:
    """The gold of an item set, returned with findings dropped and added at a profile's declared rates."""

    def __init__(self, profile: CalibrationProfile, items: Sequence[ScrubItem], run: int = 1) -> None:
        self.profile = profile
        self.run = run
        self.items = {item.contract_id: item for item in items}

    @property
    def version(self) -> str:
        """Part of every request key: a changed profile (or gold) never replays another one's answers."""
        gold = hashlib.sha256("".join(sorted(i.text_sha256 for i in self.items.values())).encode()).hexdigest()
        profile = hashlib.sha256(self.profile.model_dump_json().encode()).hexdigest()
        return f"{CALIBRATION_VERSION}:{self.profile.name}:{profile[:12]}:{gold[:12]}"

    def answer(self, task: Task) -> BaseModel:
        scrub = _scrub_task(task)
        item = self.items.get(scrub.contract_id)
        if item is None:
            raise ScrubTaskError(f"the calibration tool has no gold for contract {scrub.contract_id!r}")
        rates = self.profile.rates[scrub.category]
        gold = [g for g in item.gold if g.category == scrub.category]
        seed = (self.profile.seed, self.run, scrub.contract_id, scrub.category)
        kept = [Finding(category=g.category, **g.fields()) for i, g in enumerate(gold)
                if _unit(*seed, "miss", i) >= rates.miss]
        extras = []
        # A false finding must match no gold tuple, nor (where the category has terms) its terms alone.
        has_terms = bool(BY_KEY[scrub.category].term_fields)
        taken = {finding_key(g) for g in gold}
        if has_terms:
            taken |= {finding_key(g, terms_only=True) for g in gold}
        decoys = _decoys(scrub.category, _parsed(item.text), random.Random("|".join(map(str, seed))))
        for i in range(len(gold)):
            count = int(rates.extra) + (_unit(*seed, "extra", i) < rates.extra - int(rates.extra))
            for _ in range(count):
                decoy = next((d for d in decoys if finding_key(d) not in taken
                              and not (has_terms and finding_key(d, terms_only=True) in taken)), None)
                if decoy is not None:
                    extras.append(decoy)
                    taken.add(finding_key(decoy))
        return _output(scrub.category, kept + extras)


def _decoys(category: CategoryKey, doc: ParsedContract, rng: random.Random) -> Iterator[Finding]:
    """False findings of a category for this contract, in a seeded order: real words, party names and locations
    of the contract in combinations the caller checks against the gold."""
    words = sorted(set(re.findall(r"(?<![\w\-])[A-Z][a-z]{3,}(?:\s+[A-Z][a-z]{3,})?", doc.text)))
    labels = sorted({s.label for s in doc.sections} | {"P"})
    numbers = sorted({s.number for s in doc.sections if "(" not in s.number} | {"1"})
    parties = list(doc.party_terms) or words[:2]
    for pool in (words, labels, numbers):
        rng.shuffle(pool)
    if category == "incorrect_section_references":
        combos: Iterator[tuple[str, ...]] = itertools.product(numbers, numbers, labels)
        yield from (Finding(category=category, wrong=w, correct=c, location=loc) for w, c, loc in combos if w != c)
    elif category == "incorrect_party_references":
        yield from (Finding(category=category, wrong=w, correct=c, location=loc)
                    for w, c, loc in itertools.product(words + parties, parties, labels) if w != c)
    elif category == "terms_defined_multiple_times":
        yield from (Finding(category=category, term=t, location=a, location_2=b)
                    for t, a, b in itertools.product(words, labels, labels) if a < b)
    elif category == "inconsistent_language":
        yield from (Finding(category=category, location=a, location_2=b)
                    for a, b in itertools.combinations(labels, 2))
    else:
        yield from (Finding(category=category, term=t, location=loc) for t, loc in itertools.product(words, labels))


def calibration_answer(profile: CalibrationProfile, items: Sequence[ScrubItem],
                       run: int = 1) -> Callable[[Task], BaseModel]:
    """The calibration tool as an `answer(task)` function, bound to the gold it reads."""
    return CalibrationTool(profile, items, run).answer
