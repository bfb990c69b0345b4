"""Event types and the payload class each must carry, registered by the modules that own them.

The log itself names only the platform's own types (`payloads.py`: corpora, the registry, calls, batches).
Every other module that records events declares its types next to their payload classes and registers them
(`register_events`, into the active catalog: `lhl_platform.registries`); a suite's modules do so when they are
imported, which the application does when it is assembled (`lhl_platform.catalog`). Adding a suite therefore
edits no central list.

A writer refuses a payload of any other class than its type's; a reader gets the payload back validated
against the same class. Each type also names its staging table: the warehouse projects every registered
type's payloads into typed columns generated from the class (`lhl_platform.warehouse.staging`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from lhl_platform.registries import active


class EventPayloadError(ValueError):
    pass


@dataclass(frozen=True)
class EventKind:
    """One event type: its dotted name, the class of its payload and the table its payloads are staged in."""

    name: str
    payload: type[BaseModel]
    staging: str
    owner: str  # the module that registered it

    @property
    def description(self) -> str:
        doc = (self.payload.__doc__ or "").strip()
        return " ".join(doc.split()) if doc and not doc.startswith(("Usage docs:", "!!! abstract")) else ""


def staging_name(event_type: str) -> str:
    """The default staging table of an event type: `stg_` and the type with dots as underscores."""
    return "stg_" + event_type.replace(".", "_")


def register_events(payloads: Mapping[Any, type[BaseModel]], *, owner: str,
                    staging: Mapping[Any, str] | None = None) -> None:
    """Register event types with their payload classes (and, optionally, staging table names). Registering the
    same type with the same class again is a no-op; with another class it is an error."""
    for name, cls in payloads.items():
        kind = EventKind(name=str(name), payload=cls, staging=(staging or {}).get(name) or staging_name(name),
                         owner=owner)
        known = active().kind_entries.get(kind.name)
        if known is not None and (known.payload is not cls or known.staging != kind.staging):
            raise EventPayloadError(f"event type {kind.name!r} is registered by {known.owner} with "
                                    f"{known.payload.__name__}; {owner} registers it with {cls.__name__}")
        active().kind_entries[kind.name] = kind
    tables = [k.staging for k in active().kind_entries.values()]
    if len(set(tables)) != len(tables):
        shared = sorted({t for t in tables if tables.count(t) > 1})
        raise EventPayloadError(f"two event types share a staging table: {', '.join(shared)}")


@dataclass(frozen=True)
class EventModule:
    """A module declared to register event types, imported when types are first read: importing it registers
    them, or it holds them in `EVENT_PAYLOADS`, registered then."""

    module: str

    def __call__(self) -> None:
        payloads = getattr(importlib.import_module(self.module), "EVENT_PAYLOADS", None)
        if payloads is not None and all(kind.owner != self.module for kind in active().kind_entries.values()):
            register_events(payloads, owner=self.module)


def declare_event_module(module: str) -> None:
    """Register the event types of `module` when types are first read (`registered_kinds`, or a type that no
    module imported so far registered): a command that reads no payload builds none of their classes."""
    active().pending_events.append(EventModule(module))


def kind_of(event_type: str) -> EventKind:
    catalog = active()
    try:  # the declared modules are imported only for a type none of the modules imported so far registered
        kind: EventKind = catalog.kind_entries.get(event_type) or catalog.kinds[event_type]
        return kind
    except KeyError:
        raise EventPayloadError(f"unknown event type {event_type!r} (no module registered it)") from None


def registered_kinds() -> list[EventKind]:
    """Every registered event type, by name."""
    kinds = active().kinds
    return [kinds[name] for name in sorted(kinds)]


def check_payload(event_type: str, payload: BaseModel) -> None:
    """On write: the payload is an instance of the class registered for its type."""
    expected = kind_of(event_type).payload
    if type(payload) is not expected:
        raise EventPayloadError(f"{event_type} needs a {expected.__name__} payload, got {type(payload).__name__}")


def payload_of(event_type: str, payload_json: str) -> BaseModel:
    """On read: the stored JSON validated against its type's class."""
    return kind_of(event_type).payload.model_validate_json(payload_json)
