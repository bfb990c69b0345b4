"""Which names in a contract belong to which party: the contract's own definitions of its parties (`document`),
refined by CUAD's Parties annotation when the corpus has one.

CUAD's `Parties-Answer` cell lists each party with the names the contract gives it, one party per `;`:
`Cutanea Life Sciences, Inc. ("CUTANEA"); Ferrer Internacional, S.A. ("Ferrer")("Supplier"); (together "Parties")`.
A party term of the contract belongs to the annotated party that lists it as a quoted name, or whose legal name
its definition names. Two terms of one annotated party are one entity even when the text does not say so; a term
of no annotated party (a third company named in the recitals) is no party. Without an annotation, or when it
matches fewer than two of the contract's parties, the contract's own grouping stands.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from lhl_platform.domain.models import OracleRow
from lhl_platform.scrub.document import ParsedContract

AnnotatedParties = tuple[tuple[str, ...], ...]  # per party: its legal name and the names the contract gives it

_QUOTED = re.compile(r"[\"“]([^\"“”]{1,80}?)[,.]?[\"”]")
_COLLECTIVE = {"party", "parties"}


def parse_annotation(answer: str) -> AnnotatedParties:
    """The parties of one `Parties-Answer` cell; a collective entry (`together "Parties"`) is not a party."""
    out = []
    for chunk in answer.split(";"):
        quoted = _QUOTED.findall(chunk)
        aliases = [" ".join(a.split()) for a in quoted if a.strip().lower() not in _COLLECTIVE]
        if quoted and not aliases:
            continue  # `(together "Parties")`: the parties collectively
        name = " ".join(_QUOTED.sub(" ", chunk).replace("(", " ").replace(")", " ").split()).strip(" ,")
        if re.fullmatch(r"(?i)(?:(?:together|collectively|individually|each|and|as|a|an|the|referred|to)\s*)*", name):
            name = ""
        names = tuple(n for n in [name, *aliases] if n)
        if names:
            out.append(names)
    return tuple(out)


def annotated_parties(oracle: Iterable[OracleRow]) -> dict[str, AnnotatedParties]:
    """Each contract's annotated parties, from its `Parties` oracle cell (contracts without one are absent)."""
    return {row.contract_id: parsed for row in oracle
            if row.clause_type == "Parties" and row.answer and (parsed := parse_annotation(row.answer))}


def _key(name: str) -> str:
    """A legal name reduced to what the contract must repeat: `Ferrer Internacional, S.A.` -> `ferrer internacional`."""
    words = re.findall(r"[a-z0-9]+", name.lower())
    suffixes = {"inc", "incorporated", "llc", "ltd", "limited", "corp", "corporation", "co", "company", "sa", "s",
                "a", "ag", "gmbh", "plc", "lp", "llp", "nv", "bv", "the"}
    core = [w for w in words if w not in suffixes]
    return " ".join(core[:2])


def party_entities(doc: ParsedContract, annotated: AnnotatedParties | None = None) -> Mapping[str, int]:
    """Each party term of the contract and the entity it names (equal numbers: one party)."""
    own = {p.term: p.entity for p in doc.parties}
    if not annotated:
        return own
    text = doc.text
    found: dict[str, int] = {}
    for p in doc.parties:
        window = " ".join(text[max(0, p.definition.start - 300):p.definition.start].split()).lower()
        for index, names in enumerate(annotated):
            if p.term.lower() in {n.lower() for n in names[1:]} or p.term.lower() == names[0].lower():
                found[p.term] = index
                break
        else:
            for index, names in enumerate(annotated):
                key = _key(names[0])
                if key and key in " ".join(re.findall(r"[a-z0-9]+", window[-160:])):
                    found[p.term] = index
                    break
    if len(set(found.values())) < 2:
        return own
    return found
