"""A ContractScrub gold version from the decisions applied to the one before: a rejected edit leaves the gold and
is undone in the item text (the source text it replaced put back, the later edits' offsets moved) and the whole
defined-terms gold re-derived from the text as it now stands, as the builder derived it; a rejected defined term
leaves the gold; an edit or a defined term marked `wrong_location` stays with the reviewer's corrected location
(the text unchanged); a finding marked `pre_existing` joins the gold (a defect already in the source contract, no
edit of ours), and one marked `wrong_location` joins it at the corrected location. Every answered call is then
scored against it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from lhl_platform.review.scrub_sheet import edit_ref, term_refs
from lhl_platform.scrub.categories import CATEGORY_KEYS
from lhl_platform.scrub.document import parse_contract
from lhl_platform.scrub.items import Edit, Finding, GoldFinding, ScrubItem
from lhl_platform.scrub.versions import ScrubItemAtVersion, rescored

__all__ = ["apply", "items_at", "rescored"]


def _undo(text: str, gold: list[GoldFinding], g: GoldFinding) -> tuple[str, list[GoldFinding]]:
    assert g.edit is not None
    s, e, original = g.edit.start, g.edit.end, g.edit.original
    delta = len(original) - (e - s)
    kept: list[GoldFinding] = []
    for other in gold:
        if other is g:
            continue
        if other.edit is not None and other.edit.start >= e:
            moved = Edit(start=other.edit.start + delta, end=other.edit.end + delta, original=other.edit.original)
            other = other.model_copy(update={"edit": moved})
        kept.append(other)
    return text[:s] + original + text[e:], kept


def rederived(before: str, after: str, gold: Sequence[GoldFinding]) -> list[GoldFinding]:
    """The gold with its defined terms brought in line with `after` (the text once edits are undone): only the
    difference between the parser's readings of `before` and `after` is applied, so a term an undone edit defined
    goes, one it hid or moved comes back at its section, and a twice-defined term keeps the right one of its two
    places; every other tuple (a reviewer's `pre_existing`, a release's own gold, a term it left out) stays as
    it was. The parser's terms keep the parser's order, as the builder wrote them."""
    was = Counter((d.term, d.location) for d in parse_contract(before).definitions)
    reading = [(d.term, d.location) for d in parse_contract(after).definitions]
    gone, came = was - Counter(reading), Counter(reading) - was
    kept: dict[tuple[str, str], list[GoldFinding]] = {}
    others: list[GoldFinding] = []
    for t in gold:
        key = (str(t.term), str(t.location))
        if t.category == "defined_terms" and gone[key] > 0:
            gone[key] -= 1
        elif t.category == "defined_terms" and key in was:
            kept.setdefault(key, []).append(t)
        else:
            others.append(t)
    terms: list[GoldFinding] = []
    for key in reading:  # the parser's terms the gold holds, or that the undo brought back, in the parser's order
        if kept.get(key):
            terms.append(kept[key].pop(0))
        elif came[key] > 0:
            came[key] -= 1
            terms.append(GoldFinding(category="defined_terms", term=key[0], location=key[1]))
    terms += [t for left in kept.values() for t in left]
    order = {k: i for i, k in enumerate(CATEGORY_KEYS)}
    # the builder's order: by category, then by where the edit sits (a stable sort keeps the parser's order)
    return sorted(terms + others, key=lambda t: (order[t.category], t.edit.start if t.edit else 0))


def _reviewed_tuples(item_set: str, item: ScrubItem, rejected: set[str],
                     moved: Mapping[str, str]) -> tuple[list[GoldFinding], list[GoldFinding]]:
    """(the gold with rejected terms gone and relocated tuples moved, the edits to undo), edits as they stand."""
    by_id = {id(g): ref for ref, g in term_refs(item_set, item)}
    by_id.update({id(g): edit_ref(item_set, item, g) for g in item.gold if g.edit is not None})
    gold, undo = [], []
    for g in item.gold:
        ref = by_id.get(id(g), "")
        if ref in rejected and g.edit is None:
            continue
        if ref in moved:
            g = g.model_copy(update={"location": moved[ref]})
        if ref in rejected:
            undo.append(g)
        gold.append(g)
    return gold, undo


def apply(item_set: str, items: Sequence[ScrubItem], rejected: set[str], added: Mapping[str, list[Finding]],
          moved: Mapping[str, str] | None = None) -> tuple[ScrubItem, ...]:
    """The items with the edits of `rejected` (refs) undone, its defined terms dropped, the tuples of `moved`
    (ref: corrected location) relocated and the findings of `added` (by contract) in the gold."""
    out = []
    for item in items:
        gold, undone = _reviewed_tuples(item_set, item, rejected, moved or {})
        text = item.text
        for g in sorted(undone, key=lambda g: g.edit.start if g.edit else 0, reverse=True):
            text, gold = _undo(text, gold, g)
        if undone:
            gold = rederived(item.text, text, gold)
        gold += [GoldFinding(**f.model_dump()) for f in added.get(item.contract_id, [])]
        out.append(ScrubItem(contract_id=item.contract_id, text=text, gold=tuple(gold), source=item.source))
    return tuple(out)


def items_at(item_set: str, version: int, items: Sequence[ScrubItem]) -> list[ScrubItemAtVersion]:
    return [ScrubItemAtVersion(item_set=item_set, gold_version=version, contract_id=i.contract_id, text=i.text,
                               gold=i.gold) for i in items]
