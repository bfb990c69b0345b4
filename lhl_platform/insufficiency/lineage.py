"""InsufficiencyBench's gold versions asset (`insufficiency_gold_versions`, `lhl_platform.suites.gold_lineage`):
the active item set's versions, each digested from its items' gold as that version stands (version 1: the
required elements as ingested; a later one: each item kept or dropped and its elements, as the review recorded)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from lhl_platform.events.model import Event
from lhl_platform.home import Home
from lhl_platform.insufficiency.items import Item, ItemSet, MissingElement
from lhl_platform.insufficiency.store import load_item_set
from lhl_platform.suites.contract import StageContext, StageResult
from lhl_platform.suites.gold_lineage import REVIEW_FEEDS, gold_result, review_stream, version_lines
from lhl_platform.suites.gold_lineage import digest as digest_of

ITEM_AT_VERSION = "review.insufficiency_gold"  # an item as it stands in a gold version (lhl_platform.review)
FEEDS = (*REVIEW_FEEDS, ITEM_AT_VERSION)


def _at_versions(events: Sequence[Event], set_id: str) -> dict[int, list[dict[str, Any]]]:
    """Per later gold version, each item as the review recorded it (item_id, kept, missing_elements)."""
    at_version: dict[int, list[dict[str, Any]]] = {}
    for e in events:
        if e.type == ITEM_AT_VERSION:
            payload = json.loads(e.payload)
            if payload["item_set_id"] == set_id:
                at_version.setdefault(int(payload["gold_version"]), []).append(
                    {k: payload[k] for k in ("item_id", "kept", "missing_elements")})
    return at_version


def items_at(home: Home, items: ItemSet, version: int) -> tuple[tuple[Item, bool], ...]:
    """Every item of the set at a gold version, each with its elements as that version has them, and whether the
    version keeps it (a reviewer may have rejected it). The one reading of a version's items: the review sheet
    and the export both take it."""
    if version == 1:
        return tuple((i, True) for i in items.items)
    at = {p["item_id"]: p for p in _at_versions(review_stream(home), items.item_set_id).get(version, [])}
    return tuple((i.model_copy(update={"missing_elements": tuple(MissingElement.model_validate(m)
                                                                 for m in at[i.item_id]["missing_elements"])}),
                  bool(at[i.item_id]["kept"])) for i in items.items)


def kept_items_at(home: Home, items: ItemSet, version: int) -> tuple[tuple[Item, ...], int]:
    """The items a gold version keeps, each with its elements as that version has them; and how many it holds."""
    return tuple(i for i, kept in items_at(home, items, version) if kept), len(items.items)


def insufficiency_gold_versions(ctx: StageContext) -> StageResult:
    items = load_item_set(ctx.home)
    set_id = items.item_set_id
    events = review_stream(ctx.home)
    at_version = _at_versions(events, set_id)

    def digest_at(version: int) -> str:
        if version == 1:
            return digest_of([{"item_id": i.item_id, "kept": True,
                               "missing_elements": [m.model_dump(mode="json") for m in i.missing_elements]}
                              for i in items.items])
        return digest_of(sorted(at_version.get(version, []), key=lambda p: str(p["item_id"])))

    first = f"ingested as {items.name or set_id} ({items.provenance}) from {items.source}"
    lines = version_lines(events, "insufficiency", set_id, first, digest_at)
    ctx.log(f"item set {set_id}: gold versions 1 to {lines[-1].version}")
    return gold_result("insufficiency", set_id, lines)
