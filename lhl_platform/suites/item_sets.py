"""A suite's item sets as events, the one store every suite's sets go through.

A set is one item event per item and one summary event, written atomically to the suite's items stream: all of
it or nothing. The summary recorded last names the active set (what the stages use by default); recording a set
again makes it active again without repeating its items (their keys are the set's id and the item's id; the
summary's key counts the summaries before it, so each recording is its own event). What a suite's events are
called and which field names the set is the suite's (`ItemSetStore`); the stream's layout is this module's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from lhl_platform.events.log import EventLog
from lhl_platform.home import Home

S = TypeVar("S", bound=BaseModel)  # a summary payload
It = TypeVar("It", bound=BaseModel)  # an item payload


class ItemSetError(LookupError):
    """No such item set in the home, or one that cannot be recorded; the message says which and what to do."""


@dataclass(frozen=True)
class ItemSetStore(Generic[S, It]):
    """The item sets of one suite (`title` as messages name it) in `stream`: summaries of the `summaries`
    classes and items of class `item`, each naming its set in field `set_field`. `none` says how to record a first set;
    `known` how a recorded set is listed; `wanted` whether a summary is the set a name asks for (its id by
    default). `verb` is what the suite calls recording (recorded, ingested)."""

    title: str
    stream: str
    summaries: tuple[type[BaseModel], ...]
    item: type[It]
    set_field: str
    none: str
    verb: str = "recorded"
    known: Callable[[S], str] | None = None
    wanted: Callable[[S, str], bool] | None = None

    def record(self, home: Home, set_id: str, items: Iterable[tuple[str, str, It]], kind: str,
               summary: S) -> int:
        """Record a set (`items`: event type, item id, payload) and its summary of event type `kind`, all
        or nothing; the set becomes the active one. Returns how many items are new."""
        home.ensure()
        count = len(self.all_summaries(self.events(home.events)))
        with home.events.writer(self.stream, atomic=True) as writer:
            new = sum(writer.append(type_, item_id, f"{type_}:{set_id}:{item_id}", payload)
                      for type_, item_id, payload in items)
            writer.append(kind, set_id, f"{kind}:{set_id}:{count}", summary)
        return new

    def set_of(self, payload: BaseModel) -> str:
        set_id: str = getattr(payload, self.set_field)
        return set_id

    def events(self, log: EventLog) -> list[tuple[str, BaseModel]]:
        """The stream's payloads, in order (none before a first set)."""
        if not (log.root / self.stream).exists():
            return []
        return [(e.type, e.data()) for e in log.read(self.stream)]

    def all_summaries(self, events: Sequence[tuple[str, BaseModel]]) -> list[S]:
        """Every recording's summary, oldest first (a set recorded twice is listed twice)."""
        return [p for _, p in events if isinstance(p, self.summaries)]  # type: ignore[misc]  # S is one of them

    def latest(self, home: Home) -> dict[str, S]:
        """Each recorded set once, by id (its latest recording), the active one last."""
        latest: dict[str, S] = {}
        for s in self.all_summaries(self.events(home.events)):
            latest.pop(self.set_of(s), None)
            latest[self.set_of(s)] = s
        return latest

    def choose(self, events: Sequence[tuple[str, BaseModel]], wanted: str | None) -> S:
        """The summary of the set `wanted` names (default: the active one); an ItemSetError naming the recorded
        sets otherwise."""
        summaries = self.all_summaries(events)
        if not summaries:
            raise ItemSetError(f"no {self.title} item set is {self.verb}; {self.none}")
        matches = self.wanted or (lambda s, name: self.set_of(s) == name)
        chosen = summaries[-1] if wanted is None else next((s for s in reversed(summaries) if matches(s, wanted)),
                                                          None)
        if chosen is None:
            name = self.known or self.set_of
            listed = ", ".join(dict.fromkeys(name(s) for s in reversed(summaries)))  # the newest first
            raise ItemSetError(f"no {self.title} item set {wanted!r} is {self.verb}; {self.verb}: {listed}")
        return chosen

    def items_of(self, events: Sequence[tuple[str, BaseModel]], set_id: str) -> list[It]:
        """The items recorded for a set, in the order recorded."""
        return [p for _, p in events if isinstance(p, self.item) and self.set_of(p) == set_id]
