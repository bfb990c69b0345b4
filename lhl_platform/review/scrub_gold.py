"""A ContractScrub gold version from the decisions applied to the one before: a rejected edit leaves the gold and
is undone in the item text (the source text it replaced put back, the later edits' offsets moved, and a defined
term only that edit defined dropped from the derived defined terms); a finding marked `pre_existing` joins the gold
(a defect already in the source contract, no edit of ours). Every answered call is then scored against it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from lhl_platform.events.log import StreamWriter
from lhl_platform.home import Home
from lhl_platform.review.events import ReviewEventType, ScrubItemAtVersion, ScrubScoredAtVersion
from lhl_platform.review.scrub_sheet import Answer, CallKey, edit_ref
from lhl_platform.scrub.categories import CategoryKey
from lhl_platform.scrub.events import ScrubScored
from lhl_platform.scrub.items import Edit, Finding, GoldFinding, ScrubItem
from lhl_platform.scrub.scoring import unit_score


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
    # A term the injected text defined (and the replaced text did not) was derived from the edit: it goes too.
    for t in list(kept):
        quoted = f'"{t.term}"'
        if t.category == "defined_terms" and quoted in injected and quoted not in original:
            kept.remove(t)
            break
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


def rescored(item_set: str, version: int, items: Sequence[ScrubItem],
             calls: Mapping[CallKey, Answer]) -> list[ScrubScoredAtVersion]:
    """Every answered call's counts against the version's gold (the findings as answered: the models read the
    text of version 1)."""
    gold: dict[tuple[str, str], list[GoldFinding]] = {}
    for item in items:
        for g in item.gold:
            gold.setdefault((item.contract_id, g.category), []).append(g)
    out = []
    for (model, run, contract, category), (findings, key, source) in sorted(calls.items()):
        unit = unit_score(run, contract, category, gold.get((contract, category), []), findings)
        src: Literal["recorded", "imported"] = source
        scored = ScrubScored.of(unit, model=model, item_set=item_set, source=src, answer_key=key)
        out.append(ScrubScoredAtVersion(**scored.model_dump(), gold_version=version))
    return out


def later_gold(home: Home, item_set: str) -> list[tuple[int, tuple[ScrubItem, ...]]]:
    """Each gold version after 1 of a set and its items, so a call scored now is scored against every version
    (`scrub.scored` holds version 1): a call answered after a review counts in the reviewed figures too."""
    from lhl_platform.review.versions import latest_version, review_events, scrub_items_at

    events = review_events(home)
    return [(v, scrub_items_at(home, events, item_set, v)[1])
            for v in range(2, latest_version(events, "contractscrub", item_set) + 1)]


def write_later_scores(writer: StreamWriter, later: Sequence[tuple[int, tuple[ScrubItem, ...]]], item_set: str,
                       model: str, run: int, answers: Mapping[tuple[str, CategoryKey], tuple[tuple[Finding, ...], str]],
                       source: Literal["recorded", "imported"]) -> int:
    """The calls of one (model, run) scored against each later gold version, in the writer of their version-1
    scores (one atomic write with them where that writer is atomic); returns how many are new."""
    calls = {(model, run, c, cat): (f, key, source) for (c, cat), (f, key) in answers.items()}
    new = 0
    for version, items in later:
        for s in rescored(item_set, version, items, calls):
            new += writer.append(ReviewEventType.SCRUB_SCORED, f"{s.contract_id}/{s.category}", s.key(), s)
    return new
