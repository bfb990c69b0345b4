"""Item sets as events: a built or ingested set is recorded in the home, and every stage reads it back.

A set is one `scrub.item` event per item and one summary event (`scrub.items_built` or `scrub.items_ingested`),
written atomically to the `scrub.items` stream: all of it or nothing. The set recorded last is the active one
(what the stages scrub by default, `lhl scrub export` writes and `lhl import findings` scores); recording a set
again makes it active again without repeating its items. Read back, a set exports the same bytes it was
recorded from (its id is the digest of those bytes, checked on every load).
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from lhl_platform.domain.redaction import redact
from lhl_platform.home import Home
from lhl_platform.scrub.build import BuiltSet
from lhl_platform.scrub.events import (
    ScrubEventType,
    ScrubItemRecorded,
    ScrubItemsBuilt,
    ScrubItemsIngested,
    item_recorded,
    items_built,
    items_ingested,
)
from lhl_platform.scrub.items import ScrubItem, item_set_id
from lhl_platform.suites.item_sets import ItemSetError, ItemSetStore

__all__ = ["ITEMS_STREAM", "ItemSetError", "StoredSet", "all_sets", "load_set", "record_built", "record_ingested",
           "recorded_sets"]

ITEMS_STREAM = "scrub.items"
Summary = ScrubItemsBuilt | ScrubItemsIngested
STORE: ItemSetStore[Summary, ScrubItemRecorded] = ItemSetStore(
    title="ContractScrub", stream=ITEMS_STREAM, summaries=(ScrubItemsBuilt, ScrubItemsIngested),
    item=ScrubItemRecorded, set_field="item_set",
    none="run `lhl scrub build --contracts N` on the active corpus or `lhl ingest contractscrub FILE.jsonl`")


@dataclass(frozen=True)
class StoredSet:
    """A recorded set: its summary event and its items."""

    summary: Summary
    items: tuple[ScrubItem, ...]
    new_items: int = 0  # items recorded now (0 when the set was recorded before)

    @property
    def item_set(self) -> str:
        return self.summary.item_set

    @property
    def provenance(self) -> str:
        return self.summary.provenance

    @property
    def built(self) -> bool:
        return isinstance(self.summary, ScrubItemsBuilt)

    def describe(self) -> str:
        s = self.summary
        origin = (f"built from corpus {s.corpus} with seed {s.seed}" if isinstance(s, ScrubItemsBuilt)
                  else f"ingested from {s.file_name}")
        return f"item set {s.item_set}: {len(self.items)} contracts, {origin} ({s.provenance})"


def _record(home: Home, item_set: str, items: tuple[ScrubItem, ...], summary: Summary) -> StoredSet:
    for item in items:
        # The log redacts credential-shaped strings in every payload; a text it would change could never be
        # read back as recorded, so it is refused here rather than silently altered.
        if redact(item.text) != item.text:
            raise ItemSetError(f"contract {item.contract_id!r} holds a credential-shaped string the event log "
                               "would redact; remove it from the contract text first")
    kind = ScrubEventType.ITEMS_BUILT if isinstance(summary, ScrubItemsBuilt) else ScrubEventType.ITEMS_INGESTED
    new = STORE.record(home, item_set, ((ScrubEventType.ITEM, item.contract_id, item_recorded(item_set, item))
                                        for item in items), kind, summary)
    return StoredSet(summary=summary, items=items, new_items=new)


def record_built(home: Home, built: BuiltSet, requested: int, corpus_id: str) -> StoredSet:
    """Record a built set and make it the active one."""
    summary = items_built(built, requested, corpus_id)
    return _record(home, summary.item_set, built.items, summary)


def record_ingested(home: Home, items: tuple[ScrubItem, ...], file_name: str, data: bytes) -> StoredSet:
    """Record a set loaded from a release JSONL and make it the active one."""
    summary = items_ingested(items, file_name, data)
    return _record(home, summary.item_set, items, summary)


def recorded_sets(home: Home) -> dict[str, Summary]:
    """Each recorded set once, by id (its latest recording), the active one last."""
    return STORE.latest(home)


def load_set(home: Home, item_set: str | None = None) -> StoredSet:
    """A recorded set read back from its events (default: the active one)."""
    return _load(STORE.events(home.events), item_set)


def all_sets(home: Home) -> list[StoredSet]:
    """Every recorded set, the active one last (one read of the stream)."""
    events = STORE.events(home.events)
    return [_load(events, s) for s in recorded_sets(home)]


def _load(events: list[tuple[str, BaseModel]], item_set: str | None) -> StoredSet:
    chosen = STORE.choose(events, item_set)
    by_id = {p.contract_id: p for p in STORE.items_of(events, chosen.item_set)}
    items = tuple(by_id[c].item() for c in chosen.contract_ids if c in by_id)
    if len(items) != len(chosen.contract_ids) or item_set_id(items) != chosen.item_set:
        raise ItemSetError(f"item set {chosen.item_set}: its recorded items do not export the bytes it was recorded "
                           "from (`lhl verify` checks the log)")
    return StoredSet(summary=chosen, items=items)
