"""The digest of the SQL a build is made by: the layout version, the macros and every model, the staging models
generated from each event type's payload class included. A build records it, and a read compares it with today's.

Computing it generates the staging of every registered event type, which imports every suite's payload classes: the
bulk of a small report's start-up. So a read takes it from the home's cache (`lhl_platform/home_cache.py`), under a
key naming the code (`lhl_platform.code_digest`: every platform module and SQL file by size and modification time)
and the registrations; only when they are all the platform's own files (a test's suite, whose payload classes and
SQL live elsewhere, computes it every time)."""

from __future__ import annotations

import hashlib

from lhl_platform.code_digest import code_digest, platform_relative, under_platform
from lhl_platform.home import Home
from lhl_platform.home_cache import folder, kept
from lhl_platform.registries import active
from lhl_platform.warehouse.models import macros_sql, sql_models, sql_packages

# Bumped when the layout of a stored build changes: an older build is then rebuilt rather than refreshed.
LAYOUT = "5"
PLATFORM = "lhl_platform."


def computed_sql_digest() -> str:
    text = LAYOUT + macros_sql() + "".join(f"{m.name}|{m.partition_by}|{m.stored_as}|{m.sql}" for m in sql_models())
    return hashlib.sha256(text.encode()).hexdigest()


def registrations_key(code: str | None = None) -> str | None:
    """The code (`code`, else `code_digest()`) with what the SQL is a function of beside it: the event modules
    declared, the event types registered and the SQL packages; None when any of them is not the platform's own."""
    catalog = active()
    kinds = catalog.kind_entries.values()
    # the modules that register event types, whether imported yet or not (the key must not depend on which ones a
    # command happened to need before it asked)
    modules = sorted({m.module for m in catalog.pending_events} | {k.owner for k in kinds})
    if (not all(m.startswith(PLATFORM) for m in modules)
            or not all(k.payload.__module__.startswith(PLATFORM) for k in kinds)
            or not all(under_platform(str(p.folder)) for p in sql_packages())):
        return None
    # named within the checkout, so every checkout of the same code agrees (a key shared between machines)
    packages = [f"{p.name}|{platform_relative(str(p.folder))}" for p in sql_packages()]
    text = "\n".join([LAYOUT, code or code_digest(), *modules, "", *packages])
    return hashlib.sha256(text.encode()).hexdigest()


def sql_digest(home: Home | None = None) -> str:
    """Today's SQL digest; with a home, kept in its cache while the code and the registrations are unchanged."""
    key = registrations_key() if home is not None else None
    if home is None or key is None:
        return computed_sql_digest()
    return kept(folder(home, "sql"), key, computed_sql_digest, str, str, keep=4)
