"""Defects the source contract already had before anything was injected ("the parties" in a CUAD contract that
defines "Parties"), recognised so that a finding of one is not simply counted against the model that found it.

The gold of a built set holds only what the builder injected, so a model that finds a real slip of the source is
charged a false positive. The smallest honest account: the source's own occurrences of two kinds that can be read
off the text without judgement are recognised, and each call's false positives that name one are counted
separately as *pre-existing in source*. Precision itself is not changed (it stays a lower bound, as method.md
section 15 says); the count is reported beside it, with the precision that would follow if those were excluded.

- `uncapitalized_defined_terms`: a defined term written in lowercase after `the`, `such`, `said`, `this` or
  `each` (`the parties`, `such confidential information`), outside its own definition and where no contrasting
  word shows another thing is meant (`document.means_something_else`);
- `unused_defined_terms`: a term the source defines and never writes again, in any case or form.

Nothing is recorded in the item: the source is the item's text with its edits undone (`items.undo_edits`), so
the recognition is a function of the item alone and any set in the release format gets it. An occurrence that an
edit overlaps is the injector's, not the source's, and is left out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from lhl_platform.scrub.categories import CATEGORY_KEYS, CategoryKey
from lhl_platform.scrub.document import parse_contract, term_forms, term_pattern
from lhl_platform.scrub.items import Finding, ScrubItem, undo_edits
from lhl_platform.scrub.normalize import finding_key
from lhl_platform.scrub.scoring import Answers

PRE_EXISTING_CATEGORIES: tuple[CategoryKey, ...] = ("uncapitalized_defined_terms", "unused_defined_terms")
_DETERMINERS = {"the", "such", "said", "this", "each"}


def source_defects(source: str, edited: Sequence[tuple[int, int]] = ()) -> tuple[Finding, ...]:
    """The source's own defects of the recognised kinds, none overlapping a span of `edited` (source offsets)."""
    doc = parse_contract(source)
    text = doc.text
    out: list[Finding] = []

    def untouched(start: int, end: int) -> bool:
        return not any(s < end and start < e for s, e in edited)

    for term, spans in doc.lowercase_usages.items():
        bodies = [(d.body_start, d.body_end) for d in doc.terms[term]]
        for start, end in spans:
            before = re.search(r"([A-Za-z]+)\s+$", text[max(0, start - 20):start])
            if (before is None or before.group(1).lower() not in _DETERMINERS
                    or " ".join(text[start:end].split()) != term.lower() or any(s <= start < e for s, e in bodies)
                    or doc.means_something_else(term, start) is not None or not untouched(start, end)):
                continue
            out.append(Finding(category="uncapitalized_defined_terms", term=term, location=doc.location(start)))
    for term, definitions in doc.terms.items():
        pattern = "|".join(term_pattern(f) for f in term_forms(term))
        count = len(re.findall(rf"(?<![\w\-])(?:{pattern})(?![\w\-])", text, flags=re.IGNORECASE))
        if count <= len(definitions) and all(untouched(d.start, d.end) for d in definitions):
            out.append(Finding(category="unused_defined_terms", term=term, location=definitions[0].location))
    return tuple(out)


def item_source_defects(item: ScrubItem) -> tuple[Finding, ...]:
    """`source_defects` of the item's source, read back from the item (its edits undone)."""
    edits = sorted((g.edit for g in item.gold if g.edit is not None), key=lambda e: e.start)
    spans, shift = [], 0
    for e in edits:  # each edit's span in source offsets
        spans.append((e.start - shift, e.start - shift + len(e.original)))
        shift += (e.end - e.start) - len(e.original)
    return source_defects(undo_edits(item), spans)


def pre_existing_fp(items: Sequence[ScrubItem], answers: Answers) -> dict[CategoryKey, int]:
    """Per category, the false positives (predictions left over by the gold match) that name a pre-existing defect
    of the source; 0 for the categories not recognised."""
    out: dict[CategoryKey, int] = dict.fromkeys(CATEGORY_KEYS, 0)
    by_id = {item.contract_id: item for item in items}
    known: dict[str, tuple[Finding, ...]] = {}
    for (_, contract_id, category), findings in answers.items():
        if category not in PRE_EXISTING_CATEGORIES or contract_id not in by_id:
            continue
        if contract_id not in known:
            known[contract_id] = item_source_defects(by_id[contract_id])
        pre = Counter(finding_key(f) for f in known[contract_id] if f.category == category)
        gold = Counter(finding_key(g) for g in by_id[contract_id].gold if g.category == category)
        left = Counter(finding_key(f) for f in findings) - gold
        out[category] += sum((left & pre).values())
    return out
