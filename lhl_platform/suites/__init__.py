"""The suites the application runs, registered once when it is assembled (`lhl_platform.catalog`), in the active
catalog (`lhl_platform.registries`; a test registers its own suite in a catalog of its own).

`register_suite` hands each part of a suite to the layer that uses it: its SQL folder to the warehouse, its
offline models to the model factory; the Dagster layer, the report and the command tree read `suites()`.
`declare_suite` registers a suite by its light declaration (`DeclaredSuite`: its SQL folder, scope and event
types, what every command's warehouse needs) and loads the rest (stages, scoring, report) when it is looked up:
`get_suite(name)` loads that suite, `suites()` every one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lhl_platform.registries import active

if TYPE_CHECKING:
    from lhl_platform.suites.contract import Suite
    from lhl_platform.suites.declared import DeclaredSuite


def declare_suite(declared: DeclaredSuite) -> None:
    """Register a suite by its declaration: its event types and SQL folder now, the suite itself on first lookup."""
    from lhl_platform.warehouse.models import register_sql_folder

    catalog = active()
    if declared.name in catalog.entries:
        raise ValueError(f"two suites are named {declared.name!r}")
    declared.register_events()
    register_sql_folder(declared.sql, name=declared.name, scope=declared.scope, sources=declared.sources)
    catalog.entries[declared.name] = declared
    catalog.pending.add(declared.name)


def register_suite(suite: Suite) -> None:
    from lhl_platform.factory import register_offline_models
    from lhl_platform.warehouse.models import register_sql_folder

    catalog = active()
    known = catalog.entries.get(suite.name)
    if known is not None and known is not suite:
        from lhl_platform.suites.declared import DeclaredSuite

        if not isinstance(known, DeclaredSuite):
            raise ValueError(f"two suites are named {suite.name!r}")
        known.check(suite)  # the suite its declaration loads: the same name, SQL folder and scope
    if known is not suite:
        catalog.built.clear()  # what outer layers built from the catalog (the code location) lacks the new suite
    catalog.entries[suite.name] = suite
    catalog.pending.discard(suite.name)
    if suite.sql is not None:
        register_sql_folder(suite.sql, name=suite.name, scope=suite.scope, sources=suite.sources)
    register_offline_models(suite.offline_models)


def suites() -> list[Suite]:
    """Every registered suite, in registration order (the clause suite first), each loaded."""
    return list(active().suites.values())


def get_suite(name: str) -> Suite:
    catalog = active()
    if name not in catalog.entries:
        known = ", ".join(catalog.entries) or "none"
        raise LookupError(f"no suite named {name!r} (suites: {known}); see `lhl suites`")
    suite: Suite = catalog.suite(name)
    return suite
