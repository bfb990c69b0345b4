"""The suites the application runs, registered once when it is assembled (`lhl_platform.catalog`), in the active
catalog (`lhl_platform.registries`; a test registers its own suite in a catalog of its own).

`register_suite` hands each part of a suite to the layer that uses it: its SQL folder to the warehouse, its
offline models to the model factory; the Dagster layer, the report and the command tree read `suites()`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lhl_platform.registries import active

if TYPE_CHECKING:
    from lhl_platform.suites.contract import Suite


def _suites() -> dict[str, Suite]:
    table: dict[str, Suite] = active().suites
    return table


def register_suite(suite: Suite) -> None:
    from lhl_platform.factory import register_offline_models
    from lhl_platform.warehouse.build import register_sql_folder

    table = _suites()
    known = table.get(suite.name)
    if known is not None and known is not suite:
        raise ValueError(f"two suites are named {suite.name!r}")
    if known is None:
        active().built.clear()  # what outer layers built from the catalog (the code location) lacks the new suite
    table[suite.name] = suite
    if suite.sql is not None:
        register_sql_folder(suite.sql, name=suite.name, scope=suite.scope)
    register_offline_models(suite.offline_models)


def suites() -> list[Suite]:
    """Every registered suite, in registration order (the clause suite first)."""
    return list(_suites().values())


def get_suite(name: str) -> Suite:
    table = _suites()
    try:
        return table[name]
    except KeyError:
        known = ", ".join(table) or "none"
        raise LookupError(f"no suite named {name!r} (suites: {known}); see `lhl suites`") from None
