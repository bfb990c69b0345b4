"""A suite's review sheet at a gold version, as both `lhl review export` writes it and `lhl review import`
checks a filled-in copy against it (the same rows, so the same refs)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

from lhl_platform.home import Home
from lhl_platform.review.insufficiency_sheet import insufficiency_rows
from lhl_platform.review.rows import ReviewRow
from lhl_platform.review.scrub_sheet import scrub_rows
from lhl_platform.review.versions import GoldItem, insufficiency_items_at, latest_version, scrub_items_at
from lhl_platform.scrub.items import Finding, ScrubItem

SUITES = ("contractscrub", "insufficiency")


class ReviewSuiteError(LookupError):
    pass


@dataclass(frozen=True)
class Sheet:
    suite: str
    item_set: str
    gold_version: int
    rows: list[ReviewRow]
    scrub_items: tuple[ScrubItem, ...] = ()
    findings: dict[str, Finding] = field(default_factory=dict)  # a finding row's finding, by ref
    gold_items: tuple[GoldItem, ...] = ()


def _version(events: list[BaseModel], suite: str, item_set: str, version: int | None) -> int:
    return latest_version(events, suite, item_set) if version is None else version


def sheet(home: Home, events: list[BaseModel], suite: str, item_set: str | None, version: int | None) -> Sheet:
    """The sheet of the item set (default: the active one) at the gold version (default: the latest)."""
    if suite == "contractscrub":
        set_id, _ = scrub_items_at(home, events, item_set, 1)
        v = _version(events, suite, set_id, version)
        _, items = scrub_items_at(home, events, set_id, v)
        rows, findings = scrub_rows(home, set_id, v, items)
        return Sheet(suite, set_id, v, rows, scrub_items=items, findings=findings)
    if suite == "insufficiency":
        set_id, _ = insufficiency_items_at(home, events, item_set, 1)
        v = _version(events, suite, set_id, version)
        _, gold_items = insufficiency_items_at(home, events, set_id, v)
        return Sheet(suite, set_id, v, insufficiency_rows(set_id, v, gold_items), gold_items=gold_items)
    raise ReviewSuiteError(f"suite {suite!r} has no gold to review; suites with gold: {', '.join(SUITES)}")
