"""Item sets as events: `lhl ingest insufficiency` records a set in the home, and every stage reads it back.

An ingested set is one `insufficiency.items_ingested` event (its provenance: a self-built set says so) and one
`insufficiency.item` per item, written atomically to the `insufficiency.items` stream. The set ingested last is
the active one (what the stages answer and judge by default); ingesting a set again makes it active again
without repeating its items. A home with no set gets the shipped self-built set the first time a stage needs
items, so the suite runs without a file.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from lhl_platform.home import Home
from lhl_platform.insufficiency.events import InsufficiencyEventType, ItemRecorded, ItemsIngested
from lhl_platform.insufficiency.items import Item, ItemSet
from lhl_platform.insufficiency.selfbuilt import self_built_items
from lhl_platform.suites.item_sets import ItemSetError, ItemSetStore

__all__ = ["ITEMS_STREAM", "Ingested", "ItemSetError", "ensure_item_set", "ingest_item_set", "ingested_sets",
           "item_set_summaries", "load_item_set"]

ITEMS_STREAM = "insufficiency.items"
STORE: ItemSetStore[ItemsIngested, ItemRecorded] = ItemSetStore(
    title="InsufficiencyBench", stream=ITEMS_STREAM, summaries=(ItemsIngested,), item=ItemRecorded,
    set_field="item_set_id", verb="ingested", none="run `lhl ingest insufficiency [FILE.jsonl]`",
    known=lambda s: f"{s.item_set_id} ({s.name})", wanted=lambda s, name: name in (s.item_set_id, s.name))


class Ingested(BaseModel):
    model_config = ConfigDict(frozen=True)

    item_set: ItemSet
    new_items: int  # items recorded now (0 when the set was ingested before)


def _summary(items: ItemSet) -> ItemsIngested:
    variants = items.variants()
    return ItemsIngested(item_set_id=items.item_set_id, name=items.name, provenance=items.provenance,
                         description=items.description, source=items.source, sha256=items.sha256,
                         base_items=len(items.bases()), variants=len(variants),
                         missing_elements=sum(len(v.missing_elements) for v in variants),
                         domains=sorted({i.domain for i in items.items}),
                         jurisdictions=sorted({i.jurisdiction for i in items.items}))


def ingest_item_set(home: Home, items: ItemSet) -> Ingested:
    """Record a set (all or nothing) and make it the active one."""
    set_id = items.item_set_id
    new = STORE.record(home, set_id, ((InsufficiencyEventType.ITEM, item.item_id,
                                       ItemRecorded(item_set_id=set_id, **item.model_dump())) for item in items.items),
                       InsufficiencyEventType.ITEMS_INGESTED, _summary(items))
    return Ingested(item_set=items, new_items=new)


def ingested_sets(home: Home) -> list[ItemsIngested]:
    """Every ingestion, oldest first (a set ingested twice is listed twice)."""
    return STORE.all_summaries(STORE.events(home.events))


def item_set_summaries(home: Home) -> dict[str, ItemsIngested]:
    """Each ingested set once, by id (its latest ingestion)."""
    return STORE.latest(home)


def load_item_set(home: Home, item_set_id: str | None = None) -> ItemSet:
    """An ingested set rebuilt from its events (default: the active one)."""
    events = STORE.events(home.events)
    chosen = STORE.choose(events, item_set_id)
    items = tuple(Item.model_validate(p.model_dump(exclude={"item_set_id"}))
                  for p in STORE.items_of(events, chosen.item_set_id))
    loaded = ItemSet(name=chosen.name, provenance=chosen.provenance, description=chosen.description,
                     source=chosen.source, sha256=chosen.sha256, items=items)
    if loaded.item_set_id != chosen.item_set_id:  # the log verifies its segments; this guards the fold
        raise ItemSetError(f"item set {chosen.item_set_id}: its recorded items fingerprint as {loaded.item_set_id}")
    return loaded


def ensure_item_set(home: Home, item_set_id: str | None = None) -> ItemSet:
    """The named or active set; with none ingested and none named, the shipped self-built set, ingested now."""
    if item_set_id is None and not ingested_sets(home):
        ingest_item_set(home, self_built_items())
    return load_item_set(home, item_set_id)
