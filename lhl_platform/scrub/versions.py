"""ContractScrub gold versions as the suite scores them (`lhl review` makes them; version 1 is the gold as
recorded): the items as a gold version stands (`review.scrub_item`) and each answered call scored against it
(`review.scrub_scored`), so a call scored after a review counts in every version. Both are written to the
`review` stream by the review and to a call's own stream by the stage or an import; the suite's SQL reads them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.events.kinds import register_events
from lhl_platform.scrub.categories import CategoryKey
from lhl_platform.scrub.events import ScrubScored
from lhl_platform.scrub.items import Finding, GoldFinding, ScrubItem

if TYPE_CHECKING:  # light on import: the warehouse imports this module for its payload classes
    from lhl_platform.events.log import StreamWriter
    from lhl_platform.home import Home

REVIEW_STREAM = "review"
CallKey = tuple[str, int, str, CategoryKey]  # (model, run, contract, category)
Answer = tuple[tuple[Finding, ...], str, Literal["recorded", "imported"]]  # findings, answer key, source


class ScrubItemAtVersion(BaseModel):
    """A ContractScrub item in a gold version."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_set: str
    gold_version: int = Field(ge=2)
    contract_id: str
    text: str
    gold: tuple[GoldFinding, ...]


class ScrubScoredAtVersion(ScrubScored):
    """One answered call's counts against the gold of `gold_version`."""

    gold_version: int = Field(ge=2)

    def key(self) -> str:
        return f"review.scrub_scored:{self.gold_version}:{super().key()}"


SCRUB_ITEM = "review.scrub_item"
SCRUB_SCORED = "review.scrub_scored"
register_events({SCRUB_ITEM: ScrubItemAtVersion, SCRUB_SCORED: ScrubScoredAtVersion}, owner=__name__)


def items_at_version(home: Home, item_set: str, items: Sequence[ScrubItem],
                     version: int) -> tuple[ScrubItem, ...]:
    """The set's items (as recorded: `items`) at a gold version."""
    if version == 1:
        return tuple(items)
    at = {p.contract_id: p for p in _recorded(home) if p.item_set == item_set and p.gold_version == version}
    return tuple(ScrubItem(contract_id=i.contract_id, text=at[i.contract_id].text, gold=at[i.contract_id].gold,
                           source=i.source) for i in items)


def _recorded(home: Home) -> list[ScrubItemAtVersion]:
    log = home.events
    if not (log.root / REVIEW_STREAM).exists():
        return []
    return [e.data_as(ScrubItemAtVersion) for e in log.read(REVIEW_STREAM) if e.type == SCRUB_ITEM]


def later_gold(home: Home, item_set: str, items: Sequence[ScrubItem]) -> list[tuple[int, tuple[ScrubItem, ...]]]:
    """Each gold version after 1 of a set and its items."""
    numbers = sorted({p.gold_version for p in _recorded(home) if p.item_set == item_set})
    return [(v, items_at_version(home, item_set, items, v)) for v in numbers]


def rescored(item_set: str, version: int, items: Sequence[ScrubItem],
             calls: Mapping[CallKey, Answer]) -> list[ScrubScoredAtVersion]:
    """Every answered call's counts against the version's gold (the findings as answered)."""
    from lhl_platform.scrub.scoring import unit_score

    gold: dict[tuple[str, str], list[GoldFinding]] = {}
    for item in items:
        for g in item.gold:
            gold.setdefault((item.contract_id, g.category), []).append(g)
    out = []
    for (model, run, contract, category), (findings, key, source) in sorted(calls.items()):
        unit = unit_score(run, contract, category, gold.get((contract, category), []), findings)
        scored = ScrubScored.of(unit, model=model, item_set=item_set, source=source, answer_key=key)
        out.append(ScrubScoredAtVersion(**scored.model_dump(), gold_version=version))
    return out


def write_later_scores(writer: StreamWriter, later: Sequence[tuple[int, tuple[ScrubItem, ...]]], item_set: str,
                       model: str, run: int, answers: Mapping[tuple[str, CategoryKey], tuple[tuple[Finding, ...], str]],
                       source: Literal["recorded", "imported"]) -> int:
    """The calls of one (model, run) scored against each later gold version, in the writer of their version-1
    scores (one atomic write with them where that writer is atomic); returns how many are new."""
    calls: dict[CallKey, Answer] = {(model, run, c, cat): (f, key, source) for (c, cat), (f, key) in answers.items()}
    new = 0
    for version, items in later:
        for s in rescored(item_set, version, items, calls):
            new += writer.append(SCRUB_SCORED, f"{s.contract_id}/{s.category}", s.key(), s)
    return new
