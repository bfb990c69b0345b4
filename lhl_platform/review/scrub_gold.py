"""A ContractScrub gold version from the decisions applied to the one before: a rejected edit leaves the gold and
is undone in the item text (the source text it replaced put back, the later edits' offsets moved, and a defined
term only that edit defined dropped from the derived defined terms); a finding marked `pre_existing` joins the gold
(a defect already in the source contract, no edit of ours). Every answered call is then scored against it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lhl_platform.review.scrub_sheet import edit_ref
from lhl_platform.scrub.items import Edit, Finding, GoldFinding, ScrubItem
from lhl_platform.scrub.versions import ScrubItemAtVersion, rescored

__all__ = ["apply", "items_at", "rescored"]


def _undo(text: str, gold: list[GoldFinding], g: GoldFinding) -> tuple[str, list[GoldFinding]]:
    assert g.edit is not None
    s, e, original = g.edit.start, g.edit.end, g.edit.original
    injected = text[s:e]
    delta = len(original) - (e - s)
    kept: list[GoldFinding] = []
    for other in gold:
        if other is g:
            continue
        if other.edit is not None and other.edit.start >= e:
            moved = Edit(start=other.edit.start + delta, end=other.edit.end + delta, original=other.edit.original)
            other = other.model_copy(update={"edit": moved})
        kept.append(other)
    # Each term the injected text defined (and the replaced text did not) was derived from the edit: it goes too,
    # once (the same term defined elsewhere in the contract stays).
    gone: set[str] = set()
    for t in list(kept):
        quoted = f'"{t.term}"'
        if t.category == "defined_terms" and t.term not in gone and quoted in injected and quoted not in original:
            kept.remove(t)
            gone.add(str(t.term))
    return text[:s] + original + text[e:], kept


def apply(item_set: str, items: Sequence[ScrubItem], rejected: set[str],
          added: Mapping[str, list[Finding]]) -> tuple[ScrubItem, ...]:
    """The items with the edits of `rejected` (refs) undone and the findings of `added` (by contract) in the gold."""
    out = []
    for item in items:
        text, gold = item.text, list(item.gold)
        undone = [g for g in gold if g.edit is not None and edit_ref(item_set, item, g) in rejected]
        for g in sorted(undone, key=lambda g: g.edit.start if g.edit else 0, reverse=True):
            text, gold = _undo(text, gold, g)
        gold += [GoldFinding(**f.model_dump()) for f in added.get(item.contract_id, [])]
        out.append(ScrubItem(contract_id=item.contract_id, text=text, gold=tuple(gold), source=item.source))
    return tuple(out)


def items_at(item_set: str, version: int, items: Sequence[ScrubItem]) -> list[ScrubItemAtVersion]:
    return [ScrubItemAtVersion(item_set=item_set, gold_version=version, contract_id=i.contract_id, text=i.text,
                               gold=i.gold) for i in items]
