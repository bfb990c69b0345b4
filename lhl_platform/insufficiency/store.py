"""Item sets as events: `lhl ingest insufficiency` records a set in the home, and every stage reads it back.

An ingested set is one `insufficiency.items_ingested` event (its provenance: a self-built set says so) and one
`insufficiency.item` per item, written atomically to the `insufficiency.items` stream. The set ingested last is
the active one (what the stages answer and judge by default); ingesting a set again makes it active again
without repeating its items. A home with no set gets the shipped self-built set the first time a stage needs
items, so the suite runs without a file.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from lhl_platform.events.log import EventLog
from lhl_platform.home import Home
from lhl_platform.insufficiency.events import InsufficiencyEventType, ItemRecorded, ItemsIngested
from lhl_platform.insufficiency.items import Item, ItemSet
from lhl_platform.insufficiency.selfbuilt import self_built_items

ITEMS_STREAM = "insufficiency.items"


class ItemSetError(LookupError):
    pass


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
    home.ensure()
    log = home.events
    set_id = items.item_set_id
    count = len(ingested_sets(home))
    with log.writer(ITEMS_STREAM, atomic=True) as writer:
        new = sum(writer.append(InsufficiencyEventType.ITEM, item.item_id,
                                f"insufficiency.item:{set_id}:{item.item_id}",
                                ItemRecorded(item_set_id=set_id, **item.model_dump()))
                  for item in items.items)
        # The count makes the key unique, so ingesting a set again records that it is active again.
        writer.append(InsufficiencyEventType.ITEMS_INGESTED, set_id, f"insufficiency.items_ingested:{set_id}:{count}",
                      _summary(items))
    return Ingested(item_set=items, new_items=new)


def _stream(log: EventLog) -> list[tuple[str, BaseModel]]:
    if not (log.root / ITEMS_STREAM).exists():
        return []
    return [(e.type, e.data()) for e in log.read(ITEMS_STREAM)]


def ingested_sets(home: Home) -> list[ItemsIngested]:
    """Every ingestion, oldest first (a set ingested twice is listed twice)."""
    return [p for t, p in _stream(home.events) if isinstance(p, ItemsIngested)]


def item_set_summaries(home: Home) -> dict[str, ItemsIngested]:
    """Each ingested set once, by id (its latest ingestion)."""
    return {s.item_set_id: s for s in ingested_sets(home)}


def load_item_set(home: Home, item_set_id: str | None = None) -> ItemSet:
    """An ingested set rebuilt from its events (default: the active one)."""
    events = _stream(home.events)
    summaries = [p for _, p in events if isinstance(p, ItemsIngested)]
    if not summaries:
        raise ItemSetError("no InsufficiencyBench item set is ingested; run `lhl ingest insufficiency [FILE.jsonl]`")
    chosen = summaries[-1] if item_set_id is None else next(
        (s for s in reversed(summaries) if item_set_id in (s.item_set_id, s.name)), None)
    if chosen is None:
        known = ", ".join(dict.fromkeys(f"{s.item_set_id} ({s.name})" for s in summaries))
        raise ItemSetError(f"no InsufficiencyBench item set {item_set_id!r} is ingested; ingested: {known}")
    items = tuple(Item.model_validate(p.model_dump(exclude={"item_set_id"})) for _, p in events
                  if isinstance(p, ItemRecorded) and p.item_set_id == chosen.item_set_id)
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

