"""The tables the application's parts are registered in, held together by one `Catalog`.

A catalog holds the registered suites (`lhl_platform.suites`), the offline models (`lhl_platform.factory`), the
event types (`lhl_platform.events.kinds`) and the SQL packages (`lhl_platform.warehouse.models`); each of those
modules registers into and reads from the active catalog, and nothing else keeps a table of its own. The
application's catalog is assembled once (`lhl_platform.catalog`); a test that adds a suite builds its own from it
(`derived`), registers into that, and leaves the application's as it was.

This module sits below every layer (it imports nothing of the platform), so the tables are typed loosely here and
precisely by the modules that own them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

_loading = threading.RLock()  # held while a declared suite loads (a suite's loading may look another one up)
_in_progress: set[tuple[int, str]] = set()  # (catalog, suite) loading now


@dataclass
class Catalog:
    """Every registration of one application: suites by name, offline models by (role, model id), event types by
    name, SQL packages in registration order, and what outer layers build from it once (`built`: the Dagster
    code location, say).

    A suite may be declared before it is loaded (`lhl_platform.suites.declare_suite`): its entry is then its
    light declaration, with a `load()` that registers the whole suite, and its name is in `pending` until a
    lookup of it (`suite`) or of every suite (`suites`, `offline`) loads it, in this catalog."""

    entries: dict[str, Any] = field(default_factory=dict)  # suite name -> the suite, or its pending declaration
    pending: set[str] = field(default_factory=set)
    offline_entries: dict[tuple[str, str], Any] = field(default_factory=dict)
    kind_entries: dict[str, Any] = field(default_factory=dict)  # event type -> its kind, as registered so far
    # modules declared to register event types, imported when the types are first read (`kinds`): a command that
    # reads no event type's payload (a served report) builds none of their classes
    pending_events: list[Any] = field(default_factory=list)
    packages: list[Any] = field(default_factory=list)
    built: dict[str, Any] = field(default_factory=dict)

    def suite(self, name: str) -> Any:
        """The suite registered as `name`, loaded first if it is only declared (KeyError if it is neither)."""
        entry = self.entries[name]
        if name in self.pending:
            with _loading:  # another thread looking the suite up meanwhile waits for it, never gets the declaration
                if name in self.pending and (id(self), name) not in _in_progress:
                    _in_progress.add((id(self), name))
                    try:
                        with using(self):  # the suite registers into this catalog (leaving `pending`)
                            entry.load()
                    finally:
                        _in_progress.discard((id(self), name))
        return self.entries[name]

    @property
    def suites(self) -> dict[str, Any]:
        """Every suite by name, in registration order, each loaded."""
        for name in list(self.entries):
            self.suite(name)
        return self.entries

    @property
    def kinds(self) -> dict[str, Any]:
        """Every event type by name, the declared event modules imported first (each registers into this catalog)."""
        if self.pending_events:
            with _loading, using(self):
                while self.pending_events:
                    self.pending_events.pop(0)()
        return self.kind_entries

    @property
    def offline(self) -> dict[tuple[str, str], Any]:
        """The offline models, every suite's (so each declared suite is loaded first)."""
        self.suites  # noqa: B018  (loads the declared suites, which register their offline models)
        return self.offline_entries

    def copy(self) -> Catalog:
        """Another catalog with the same registrations (nothing built yet); its event modules are imported first,
        so that the types they register (once per process) are this catalog's too."""
        return Catalog(dict(self.entries), set(self.pending), dict(self.offline_entries), dict(self.kinds),
                       packages=list(self.packages))


_active = Catalog()


def active() -> Catalog:
    """The catalog registrations go to and lookups read: the application's, unless a test made its own."""
    return _active


@contextmanager
def using(catalog: Catalog) -> Iterator[Catalog]:
    """Make `catalog` the active one for the duration, then restore the one before."""
    global _active
    before, _active = _active, catalog
    try:
        yield catalog
    finally:
        _active = before


@contextmanager
def derived() -> Iterator[Catalog]:
    """A catalog of the active one's registrations, active for the duration: what is registered meanwhile stays
    in it."""
    with using(active().copy()) as catalog:
        yield catalog
