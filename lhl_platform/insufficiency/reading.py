"""Reading a free-text answer the way the offline cue judge needs it: sentences, their framing, fragments, cues.

1. **Sentences.** The text is normalised (quotes, dashes, ellipses), split at line breaks and at sentence
   ends, except after the abbreviations legal text is full of ("v.", "Stat.", "U.S.C.", "e.g.").
2. **Framing.** Each sentence is an ASK (a question or a request for facts), else a GAP statement ("you did
   not say", "without knowing"), else a CONDITIONAL ("if you", "depends on", "assuming"), else NONE; the
   throwaway hedges of `cues.GENERIC` are removed first, so "laws vary by state" frames nothing.
3. **Fragments.** An ASK is cut into its separate asks (at enumerators "(1)", semicolons, commas, colons and
   "and whether/which/how..."), a GAP into its enumerated items; in each fragment the part after a dash, or a
   clause opened by "since", "because", "which"... is the fragment's *detail* (its explanation), the rest its
   *head* (what it asks about). A CONDITIONAL sentence is one fragment, all head.
4. **Cues.** `find` locates the sub-tag cues of `cues.SUBTAG_CUES` in a text as word sequences over light
   stems; `states_named` finds US jurisdictions; `content_words` is what an ask is about once its framing
   words are gone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from lhl_platform.insufficiency.cues import (
    ASK,
    CONDITIONAL,
    EXPLANATION_OPENERS,
    FRAME_OPENERS,
    FRAMING_WORDS,
    GAP,
    GENERIC,
    JURISDICTION_SUBTAGS,
    REFERENTIAL,
    STOPWORDS,
    SUBTAG_CUES,
    TIMING_GENERIC,
    TIMING_SUBTAGS,
    US_STATES,
)


class Framing(StrEnum):
    ASK = "ask"
    GAP = "gap"
    CONDITIONAL = "conditional"
    NONE = "none"


@dataclass(frozen=True)
class Fragment:
    sentence: int  # index into Reading.sentences
    framing: Framing
    head: str  # what the fragment asks about or conditions on
    detail: str  # the explanation attached to it (after a dash, or a "since ..." clause)


@dataclass(frozen=True)
class Reading:
    sentences: tuple[str, ...]
    framings: tuple[Framing, ...]
    fragments: tuple[Fragment, ...]


_ABBREVIATIONS = frozenset({"v", "vs", "stat", "bus", "com", "prof", "gov", "mun", "civ", "prac", "rem", "tex",
                            "fla", "cal", "ill", "ga", "servs", "mgmt", "inc", "co", "no", "mr", "ms", "dr", "st",
                            "e.g", "i.e", "etc", "u.s", "u.s.c", "o.c.g.a", "n.y", "d.c", "sec", "art", "para"})
_SENTENCE_END = re.compile(r"([.?!…]+)([\"')\]*]*)\s+(?=[\"'(\[*]*[A-Z0-9$§])")
_ENUMERATOR = re.compile(r"\(\d{1,2}\)\s*|(?:(?<=\s)|^)\d{1,2}[.)]\s+|(?:(?<=\s)|^)[-•*]\s+")
_ASK_SPLIT = re.compile(r",\s+|\s+(?:and|or)\s+(?=(?:whether|which|how|what|when|where|who|whom|did|do|does|is|are"
                        r"|was|were|has|have|if|on what)\b)")
# "..., and what is her role?": a question joined to the one before it, read as part of it unless it names a cue.
_FOLLOW_ON = re.compile(r"(?:and|or)\s+(?:what|which|who|whom|how|when|where|did|do|does|is|are|was|were|has|have"
                        r"|had|can|could)\b", re.IGNORECASE)
_DASH = re.compile(r"\s+—\s+|—")
_WORD = re.compile(r"\$?\d[\d,]*(?:\.\d+)?%?\+?|[a-z]+(?:'[a-z]+)?")
_NUMBER = re.compile(r"^\$?\d")


def normalise(text: str) -> str:
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = text.replace("–", "—").replace(" -- ", " — ").replace(". . .", "…").replace("...", "…")
    return re.sub(r"[ \t]+", " ", text)


def _strip_generic(text: str) -> str:
    lowered = text.lower()
    for phrase in GENERIC:
        lowered = lowered.replace(phrase, " ")
    return lowered


def sentences(text: str) -> list[str]:
    out: list[str] = []
    for line in normalise(text).splitlines():
        start = 0
        for match in _SENTENCE_END.finditer(line):
            before = line[start:match.start()].rsplit(" ", 1)[-1].lower().strip("(\"'[*").rstrip(".")
            if match.group(1) == "." and (before in _ABBREVIATIONS or (before.isdigit() and start == match.start()
                                                                         - len(before))):
                continue  # "Stat. § 95.11", or an item number opening the line ("2. Is there ...")
            out.append(line[start:match.end()].strip())
            start = match.end()
        rest = line[start:].strip()
        if rest:
            out.append(rest)
    return [s for s in out if s]


def framing(sentence: str) -> Framing:
    text = _strip_generic(sentence)
    if ASK.search(text):
        return Framing.ASK
    if GAP.search(text):
        return Framing.GAP
    if CONDITIONAL.search(text):
        return Framing.CONDITIONAL
    return Framing.NONE


def _head_and_detail(piece: str) -> tuple[str, str]:
    parts = _DASH.split(piece, maxsplit=1)
    return parts[0].strip(), (parts[1].strip() if len(parts) > 1 else "")


def _names_a_cue(text: str) -> bool:
    return bool(find(text, SUBTAG_CUES))


def _ask_fragments(index: int, item: str, kind: Framing) -> list[Fragment]:
    """One enumerated item of an ASK sentence, cut into its asks."""
    lead, colon, rest = item.partition(": ")
    if colon and _names_a_cue(lead):  # "What outcome are you hoping for: X or Y?" -- the rest are its options
        head, detail = _head_and_detail(lead)
        return [Fragment(index, kind, head, f"{detail} {rest}".strip())]
    out: list[Fragment] = []
    if colon:  # a lead that names nothing ("I would need to know:") only frames the asks after it
        item = rest
    head, detail = _head_and_detail(item)
    for part in _ASK_SPLIT.split(head):
        part = part.strip()
        if not part:
            continue
        follow_on = _FOLLOW_ON.match(part) is not None and not _names_a_cue(part)
        if out and (part.lower().startswith(EXPLANATION_OPENERS) or follow_on):  # explains or continues the ask
            last = out[-1]
            out[-1] = Fragment(index, kind, last.head, f"{last.detail} {part}".strip())
        else:
            out.append(Fragment(index, kind, part, ""))
    if detail and out:
        last = out[-1]
        out[-1] = Fragment(index, kind, last.head, f"{last.detail} {detail}".strip())
    return out


def fragments_of(index: int, sentence: str, kind: Framing) -> list[Fragment]:
    if kind is Framing.NONE:
        return []
    if kind is Framing.CONDITIONAL:
        return [Fragment(index, kind, sentence, "")]
    items = [p.strip() for p in _ENUMERATOR.split(sentence) if p.strip()]
    if kind is Framing.GAP:
        return [Fragment(index, kind, *_head_and_detail(q)) for p in items for q in p.split(";") if q.strip()]
    return [f for item in items for piece in item.split(";") if piece.strip()
            for f in _ask_fragments(index, piece.strip(), kind)]


def read(text: str) -> Reading:
    found = sentences(text)
    kinds = [framing(s) for s in found]
    fragments = [f for i, (s, k) in enumerate(zip(found, kinds, strict=True)) for f in fragments_of(i, s, k)]
    return Reading(tuple(found), tuple(kinds), tuple(fragments))


# Cue matching -------------------------------------------------------------------------------------

def stem(word: str) -> str:
    """Light stemming: enough for plurals and the common verb and noun endings of legal prose."""
    word = word.lower().removesuffix("'s")
    for suffix in ("ations", "ation", "ings", "ing", "ions", "ion", "ments", "ment", "ied", "ies", "ed", "es", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix in ("ied", "ies") else "")
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("-", " "))


def stems(text: str) -> list[str]:
    return [stem(w) for w in words(text)]


@cache
def _cue_stems(sub_tag: str) -> tuple[tuple[str, ...], ...]:
    phrases = (sub_tag.replace("_", " "),) + SUBTAG_CUES.get(sub_tag, ())  # its canonical name always counts
    if sub_tag in TIMING_SUBTAGS:
        phrases += TIMING_GENERIC
    return tuple(tuple(stems(p)) for p in phrases if stems(p))


@cache
def _state_stems() -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(stems(s)) for s in US_STATES)


def _positions(tokens: list[str], phrase: tuple[str, ...]) -> Iterable[int]:
    size = len(phrase)
    for i in range(len(tokens) - size + 1):
        if tuple(tokens[i:i + size]) == phrase:
            yield i


def find(text: str, sub_tags: Iterable[str], *, with_states: bool = True) -> list[tuple[int, str]]:
    """(token position, sub-tag) of every cue of the given sub-tags in the text, earliest first. A jurisdiction
    sub-tag also matches a named US state when `with_states`."""
    tokens = stems(_strip_generic(text))
    hits: list[tuple[int, str]] = []
    for tag in sub_tags:
        phrases = _cue_stems(tag) + (_state_stems() if with_states and tag in JURISDICTION_SUBTAGS else ())
        first = min((p for phrase in phrases for p in _positions(tokens, phrase)), default=None)
        if first is not None:
            hits.append((first, tag))
    return sorted(hits)


def states_named(text: str) -> set[str]:
    tokens = stems(_strip_generic(text))
    return {" ".join(s) for s in _state_stems() if any(True for _ in _positions(tokens, s))}


def near_number(text: str, sub_tag: str, window: int = 4) -> bool:
    """Whether a cue of the sub-tag sits within `window` words of a number ("earning under $150k")."""
    tokens = stems(_strip_generic(text))
    numbers = [i for i, t in enumerate(tokens) if _NUMBER.match(t)]
    for phrase in _cue_stems(sub_tag):
        for p in _positions(tokens, phrase):
            if any(abs(n - p) <= window + len(phrase) for n in numbers):
                return True
    return False


def content_words(text: str) -> list[str]:
    return [w for w in words(_strip_generic(text)) if w.isalpha() and len(w) > 2 and w not in FRAMING_WORDS
            and w not in STOPWORDS]


def names_nothing(text: str) -> bool:
    """An ask that frames the request as a whole or points back at others ("Could you confirm these?")."""
    lowered = text.lower().strip()
    if lowered.startswith(FRAME_OPENERS):
        return True
    content = content_words(text)
    return not content or (len(content) < 2 and bool(set(words(text)) & REFERENTIAL))
