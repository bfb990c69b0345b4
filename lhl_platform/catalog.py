"""The application assembled: every suite the platform runs, declared once in one catalog, `CATALOG`.

Importing this module declares, in the catalog (`lhl_platform.registries.Catalog`), each suite by its light
declaration (`lhl_platform.suites.declared.DeclaredSuite`): its event types and its SQL folder with its scope,
which every command's warehouse reads. The rest of a suite (stages, scoring, report, offline models) loads when
it is looked up: `get_suite(name)` loads that suite (`lhl report --suite insufficiency` loads no other), and
`suites()` every one (the Dagster code location, built once per catalog, `lhl suites`, the demo). When a suite
loads, it is checked against its declaration. A test that adds a suite makes its own catalog (`catalog_with`) and
leaves this one as it was. The entry points import this module before anything else: the Dagster code location
and the tests on import, the `lhl` command when a command runs (before it reads or writes the home; its help and
argument errors load no suite). A new suite is one declaration here, plus, when it adds commands, one in
`lhl_platform.catalog_commands` (the command tree is built from that light module, and tests/test_lazy_cli.py
checks that the two agree).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from lhl_platform.clause.scope import SCOPE as CLAUSE_SCOPE
from lhl_platform.clause.sources import SOURCES as CLAUSE_SOURCES
from lhl_platform.events.kinds import declare_event_module
from lhl_platform.lexflip.sources import SOURCES as LEXFLIP_SOURCES
from lhl_platform.registries import Catalog, active, using
from lhl_platform.suites import declare_suite, register_suite
from lhl_platform.suites.declared import DeclaredSuite
from lhl_platform.warehouse.scope import SuiteScope
from sql import SQL_DIR

if TYPE_CHECKING:
    from lhl_platform.suites.contract import Suite

# The event types of the platform's own services that every suite's runs record (call budgets, gold reviews).
PLATFORM_EVENTS = ("lhl_platform.events.payloads", "lhl_platform.calls.budget", "lhl_platform.review.events")

DECLARED: tuple[DeclaredSuite, ...] = (
    DeclaredSuite("clause", "lhl_platform.clause.suite", SQL_DIR / "clause",
                  events=("lhl_platform.clause.extraction.events", "lhl_platform.judging.events",
                          "lhl_platform.clause.debate.events"), scope=CLAUSE_SCOPE,
                  sources=CLAUSE_SOURCES),
    DeclaredSuite("lexflip", "lhl_platform.lexflip.suite", SQL_DIR / "lexflip",
                  events=("lhl_platform.lexflip.events",), sources=LEXFLIP_SOURCES),
    DeclaredSuite("insufficiency", "lhl_platform.insufficiency.suite", SQL_DIR / "insufficiency",
                  events=("lhl_platform.insufficiency.events",),
                  scope=SuiteScope(suite="insufficiency", cells="insufficiency_cells", judged=True,
                                   default_judge="insufficiency-cue-judge", judgments="int_insufficiency_judgments",
                                   gold="int_insufficiency_gold_versions")),
    DeclaredSuite("contractscrub", "lhl_platform.scrub.suite", SQL_DIR / "scrub",
                  events=("lhl_platform.scrub.events", "lhl_platform.scrub.versions"),
                  scope=SuiteScope(suite="contractscrub", cells="scrub_cells", gold="int_scrub_gold_versions")),
)

for _module in PLATFORM_EVENTS:
    declare_event_module(_module)  # each registers its event types on import, when event types are first read
for _declared in DECLARED:
    declare_suite(_declared)
CATALOG: Catalog = active()


@contextmanager
def catalog_with(*suites: Suite) -> Iterator[Catalog]:
    """A catalog of the application's registrations plus these suites, active for the duration (a test's own
    suite: the event types its modules register when first imported meanwhile are its own too); the application's
    catalog is left as it was (its suites are loaded first, so that what they register on loading stays theirs)."""
    CATALOG.suites  # noqa: B018  (loads every declared suite into the application's catalog)
    with using(CATALOG.copy()) as own:
        for suite in suites:
            register_suite(suite)
        yield own
