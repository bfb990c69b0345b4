"""Whether a phrase the injector would capitalise or define reads as a term at all: a noun phrase made of words.

- A verb and its object is no term: after `to` or a modal (`to hire personnel`, `shall not offer services`) the
  first word is a verb, and "to Hire Personnel" reads as a capitalisation slip of a verb phrase, not as a term
  used as if defined. After `to` an adjective can still lead a noun phrase ("subject to Financial Statements"), so
  a first word with an adjective's ending is let through there; after a modal nothing is.
- A token that is no word is no term: CUAD's texts run words together where a PDF lost a space ("usesuch"); such a
  token is written nowhere else in the contract, where a word a term is made of is written at least twice.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from lhl_platform.scrub.vocabulary import HEAD_NOUNS

_MODALS = frozenset({"shall", "will", "may", "must", "not", "can", "cannot", "would", "should", "could", "might"})
_ADJECTIVE_ENDINGS = ("al", "ed", "ing", "ous", "ful", "ary", "ic")
_LONG_ADJECTIVE_ENDINGS = ("ive", "ent", "ant", "ble", "ory")  # "exclusive", but "give", "grant"


def verb_phrase(text: str, start: int) -> bool:
    """Whether the phrase starting at `start` is a verb and its object, by the word before it."""
    before = re.search(r"([A-Za-z]+)\s+$", text[max(0, start - 20):start])
    if before is None:
        return False
    word = before.group(1).lower()
    if word in _MODALS:
        return True
    first = re.match(r"[A-Za-z]+", text[start:start + 40])
    if word != "to" or first is None:
        return False
    lead = first.group().lower()
    return not (lead.endswith(_ADJECTIVE_ENDINGS) or len(lead) >= 7 and lead.endswith(_LONG_ADJECTIVE_ENDINGS))


@lru_cache(maxsize=32)
def _word_counts(text: str) -> Counter[str]:
    return Counter(re.findall(r"[a-z]+", text.lower()))


def not_words(text: str, phrase: str, least: int = 2) -> list[str]:
    """The tokens of `phrase` that are not words of `text`: written fewer than `least` times in it (in any case)
    and not among the nouns the injector builds terms of."""
    counts = _word_counts(text)
    return [w for w in re.findall(r"[a-z]+", phrase.lower()) if counts[w] < least and w not in HEAD_NOUNS]
