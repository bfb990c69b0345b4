"""Evidence from the contract text: verbatim checks, locating a quote, and how well a passage fits a clause.

- `is_verbatim`: a quote occurs in the contract, up to whitespace and typographic quote/dash variants.
- `locate`: where a quote comes from. A verbatim quote is its own source; otherwise the quote's words
  are aligned (longest matching blocks) against the one or two contract sentences sharing most of its
  words, and the aligned region of the contract is returned with the share of the quote's words it
  matched. The quote counts as located when at least half its words align, or when the aligned region
  (six words or more) is almost wholly matched (the quote is its source with words added). A quote with
  an amount changed or a condition added or dropped is located at its real source passage; a quote
  made up of words the contract does not hold is not located. Quote words left over at either edge
  that replaced source words (a changed amount at the end) pull in as many source words of the same
  sentence; leftover words that open a condition (an added proviso) pull in none.
- `cue_fit`: the lexical extractor's cue score of a passage (or of the sentence holding it) divided by
  the clause type's threshold; 1.0 or more means the extractor itself would have detected the clause
  there, 0 means not one positive cue of the clause type. The four types that extractor finds with
  targeted patterns get targeted fits: a capitalised title line, party names in the opening sentences,
  a date next to its signal words.
- `search`: the lexical extractor's own answer for one clause type, with its fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from lhl_platform.clause.extraction.lexical import CUES, THRESHOLD, extract_clauses, sentences
from lhl_platform.clause.extraction.task import ExtractTask
from lhl_platform.lexicon import condition_markers

MIN_COVERAGE = 0.5  # share of a quote's words that must align for the quote to count as located
MIN_SOURCE_WORDS = 6  # ... or the least length of an aligned region that is matched almost wholly
SOURCE_COVERAGE = 0.8
PARTIAL_FIT = 1 / 3  # a passage at or above this fit shows real cues of the clause type

_TYPOGRAPHIC = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                              "\u2014": "-", "\u00a0": " "})
_EDGE_PUNCT = re.compile(r"^\W+|\W+$")
_DATE = re.compile(r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
                   r"\s+\d{1,2},?\s+\d{4}|\d{1,2}(?:st|nd|rd|th)?\s+day\s+of\s+\w+,?\s+\d{4}|\d{1,2}/\d{1,2}/\d{2,4}")
_TITLE_WORD = re.compile(r"AGREEMENT|CONTRACT|LICEN[CS]E|LEASE", re.IGNORECASE)
_PARTY_SIGNAL = re.compile(r"\bbetween\b|\bby and among\b|\bamong\b|\bparties\b", re.IGNORECASE)
_ENTITY = re.compile(r"\b(Inc|LLC|L\.L\.C|Corp|Corporation|Ltd|Limited|L\.P|LLP|Company|Co|GmbH|S\.A|plc|N\.V)\b\.?")
_DATE_SIGNAL = {
    "Agreement Date": re.compile(r"\b(dated|entered into|made|as of|signed|executed)\b", re.IGNORECASE),
    "Effective Date": re.compile(r"\b(effective|commence\w*|begin\w*|start\w*)\b", re.IGNORECASE),
}


def squash(text: str) -> str:
    """Whitespace collapsed and typographic quotes and dashes made plain, for verbatim comparison."""
    return re.sub(r"\s+", " ", text.translate(_TYPOGRAPHIC)).strip()


def _norm_word(word: str) -> str:
    return _EDGE_PUNCT.sub("", word.translate(_TYPOGRAPHIC).lower())


@dataclass(frozen=True)
class _Sentence:
    text: str
    squashed: str
    words: tuple[str, ...]
    norm: tuple[str, ...]


@dataclass(frozen=True)
class _Index:
    squashed: str
    sentences: tuple[_Sentence, ...]


@lru_cache(maxsize=32)
def _index(text: str) -> _Index:
    sents = []
    for s in sentences(text):
        words = tuple(s.text.split())
        sents.append(_Sentence(s.text, squash(s.text), words, tuple(_norm_word(w) for w in words)))
    return _Index(squash(text), tuple(sents))


def is_verbatim(quote: str, contract_text: str) -> bool:
    q = squash(quote)
    return bool(q) and q in _index(contract_text).squashed


@dataclass(frozen=True)
class Located:
    passage: str
    verbatim: bool
    coverage: float


def locate(quote: str, contract_text: str) -> Located | None:
    """The contract passage a quote comes from, or None when too few of its words align with the contract."""
    if not squash(quote):
        return None
    if is_verbatim(quote, contract_text):
        return Located(squash(quote), True, 1.0)
    q_words = [w for w in (_norm_word(x) for x in quote.split()) if w]
    if not q_words:
        return None
    sents = _index(contract_text).sentences
    if not sents:
        return None
    wanted = set(q_words)
    best = max(range(len(sents)), key=lambda i: (len(wanted & set(sents[i].norm)), -i))
    windows = [(best, best + 1), (best - 1, best + 1), (best, best + 2)]
    chosen: tuple[list[str], list[int], list[tuple[int, int, int]]] | None = None
    chosen_matched = 0
    for lo, hi in windows:
        if lo < 0 or hi > len(sents):
            continue
        words = [w for s in sents[lo:hi] for w in s.words]
        owner = [i for i in range(lo, hi) for _ in sents[i].words]
        norm = [w for s in sents[lo:hi] for w in s.norm]
        blocks = [(b.a, b.b, b.size) for b in SequenceMatcher(None, norm, q_words, autojunk=False).get_matching_blocks()
                  if b.size]
        # Lone one-word matches at the edges are chance hits ("the", "of"), not the quote's source.
        while len(blocks) > 1 and blocks[0][2] < 2:
            blocks.pop(0)
        while len(blocks) > 1 and blocks[-1][2] < 2:
            blocks.pop()
        matched = sum(size for _, _, size in blocks)
        if matched > chosen_matched:
            chosen, chosen_matched = (words, owner, blocks), matched
    if chosen is None:
        return None
    coverage = chosen_matched / len(q_words)
    words, owner, blocks = chosen
    start, end = blocks[0][0], blocks[-1][0] + blocks[-1][2]
    whole_source = chosen_matched >= MIN_SOURCE_WORDS and chosen_matched >= SOURCE_COVERAGE * (end - start)
    if coverage < MIN_COVERAGE and not whole_source:
        return None
    # Quote words left unmatched at an edge replaced source words there (a changed amount at the end, say):
    # take in as many source words, without leaving the sentence. Unmatched words that open a condition
    # were added, not replaced, and take in nothing.
    head, tail = q_words[: blocks[0][1]], q_words[blocks[-1][1] + blocks[-1][2]:]
    for _ in range(0 if condition_markers(" ".join(head)) else len(head)):
        if start == 0 or owner[start - 1] != owner[start]:
            break
        start -= 1
    for _ in range(0 if condition_markers(" ".join(tail)) else len(tail)):
        if end == len(words) or owner[end] != owner[end - 1]:
            break
        end += 1
    region = words[start:end]
    found = re.search(r"\s+".join(re.escape(w) for w in region), contract_text)
    passage = found.group(0) if found else " ".join(region)
    return Located(squash(passage), False, coverage)


def _cue_score(text: str, clause_type: str) -> float:
    return sum(w for pattern, w in CUES[clause_type] if re.search(pattern, text, flags=re.IGNORECASE))


def _holding_sentences(passage: str, contract_text: str) -> list[_Sentence]:
    p = squash(passage)
    return [s for s in _index(contract_text).sentences if p in s.squashed or (len(s.squashed) > 20 and s.squashed in p)]


def _targeted_fit(clause_type: str, passage: str, contract_text: str) -> float:
    sents = _index(contract_text).sentences
    p = squash(passage)
    opening = sents[:6]
    in_opening = [s for s in opening if p in s.squashed]
    words = len(p.split())
    if clause_type == "Document Name":
        if not _TITLE_WORD.search(p) or not any(p in s.squashed for s in sents[:5]):
            return 0.0
        return 1.0 if p.isupper() else (0.5 if words <= 12 else 0.0)
    if clause_type == "Parties":
        if in_opening:
            fit = 1.0 if any(_PARTY_SIGNAL.search(s.text) for s in in_opening) else 0.5
        else:
            fit = 0.5 if _ENTITY.search(p) and _holding_sentences(p, contract_text) else 0.0
        return min(fit, 0.5) if words > 25 else fit
    if not _DATE.search(p):
        return 0.0
    holding = _holding_sentences(p, contract_text)
    return 1.0 if any(_DATE_SIGNAL[clause_type].search(s.text) for s in holding) else 0.5


def cue_fit(clause_type: str, passage: str, contract_text: str) -> float:
    """How well a passage fits the clause type (see the module docstring); 0 when it shows no cue at all."""
    if not squash(passage):
        return 0.0
    if clause_type not in CUES:
        return _targeted_fit(clause_type, passage, contract_text)
    score = _cue_score(passage, clause_type)
    for s in _holding_sentences(passage, contract_text):
        score = max(score, _cue_score(s.text, clause_type))
    return max(0.0, score / THRESHOLD[clause_type])


@dataclass(frozen=True)
class Found:
    quotes: tuple[str, ...]
    fit: float


@lru_cache(maxsize=256)
def search(clause_type: str, contract_text: str) -> Found | None:
    """The lexical extractor's answer for one clause type, or None when it finds nothing."""
    task = ExtractTask(contract_id="search", contract_text=contract_text, clause_types=(clause_type,))
    answer = extract_clauses(task).clauses[0]
    quotes = tuple(q for q in answer.quotes if squash(q))
    if not answer.present or not quotes:
        return None
    return Found(quotes, max(cue_fit(clause_type, q, contract_text) for q in quotes))
