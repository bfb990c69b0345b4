"""Gold versions as the review stream records them. Version 1 of every item set is its gold as recorded (built,
ingested); each `lhl review import` makes the next one from the version its sheet was exported from. An item
set's gold at a version is read back from the events alone."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from lhl_platform.home import Home
from lhl_platform.insufficiency.items import Item
from lhl_platform.insufficiency.lineage import items_at
from lhl_platform.insufficiency.store import load_item_set
from lhl_platform.review.events import (
    STREAM,
    DecisionRecorded,
    GoldVersionMade,
)
from lhl_platform.scrub.items import ScrubItem
from lhl_platform.scrub.store import load_set
from lhl_platform.scrub.versions import items_at_version


class GoldVersionError(LookupError):
    """No such gold version, or a sheet that does not fit the gold as it stands; the message says which."""


def review_events(home: Home) -> list[BaseModel]:
    log = home.events
    if not (log.root / STREAM).exists():
        return []
    return [e.data() for e in log.read(STREAM)]


def versions(events: list[BaseModel], suite: str, item_set: str) -> list[GoldVersionMade]:
    """The versions after 1 of one item set, oldest first."""
    return [p for p in events if isinstance(p, GoldVersionMade) and p.suite == suite and p.item_set == item_set]


def latest_version(events: list[BaseModel], suite: str, item_set: str) -> int:
    made = versions(events, suite, item_set)
    return made[-1].gold_version if made else 1


def check_version(events: list[BaseModel], suite: str, item_set: str, version: int) -> None:
    latest = latest_version(events, suite, item_set)
    if not 1 <= version <= latest:
        raise GoldVersionError(f"item set {item_set} of {suite} has no gold version {version}; its versions are "
                               f"1 to {latest}")


def decisions(events: list[BaseModel], files: tuple[str, ...] | None = None) -> list[DecisionRecorded]:
    return [p for p in events if isinstance(p, DecisionRecorded) and (files is None or p.file_sha256 in files)]


def scrub_items_at(home: Home, events: list[BaseModel], item_set: str | None,
                   version: int) -> tuple[str, tuple[ScrubItem, ...]]:
    """A ContractScrub set's items at a gold version (text and gold); (item set id, items)."""
    stored = load_set(home, item_set)
    check_version(events, "contractscrub", stored.item_set, version)
    return stored.item_set, items_at_version(home, stored.item_set, stored.items, version)


@dataclass(frozen=True)
class GoldItem:
    """An InsufficiencyBench item at a gold version: `kept` false once a reviewer rejected it."""

    item: Item
    kept: bool = True


def insufficiency_items_at(home: Home, events: list[BaseModel], item_set: str | None,
                           version: int) -> tuple[str, tuple[GoldItem, ...]]:
    items = load_item_set(home, item_set)
    check_version(events, "insufficiency", items.item_set_id, version)
    return items.item_set_id, tuple(GoldItem(i, kept) for i, kept in items_at(home, items, version))
