"""The application assembled: every suite the platform runs, registered once in one catalog, `CATALOG`.

Importing this module registers, in the catalog (`lhl_platform.registries.Catalog`), each suite's event types (its
modules register them when they are imported), its SQL folder and its offline models; the Dagster code location
(built once per catalog), the report and the command tree read the registered suites
(`lhl_platform.suites.suites`). A test that adds a suite makes its own catalog (`catalog_with`) and leaves this
one as it was. The entry
points import it before anything else: the Dagster code location and the tests on import, the `lhl` command when a
command runs (before it reads or writes the home; its help and argument errors load no suite). A new suite is one
line here, plus, when it adds commands, one declaration in `lhl_platform.catalog_commands` (the command tree is
built from that light module, and tests/test_lazy_cli.py checks that the two agree).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import lhl_platform.debate.events
import lhl_platform.extraction.events
import lhl_platform.judging.events
import lhl_platform.lexflip.events
import lhl_platform.review.events  # noqa: F401  (the modules registering the suites' and the review's event types)
from lhl_platform.clause.suite import SUITE as CLAUSE
from lhl_platform.insufficiency.suite import SUITE as INSUFFICIENCY
from lhl_platform.lexflip.suite import SUITE as LEXFLIP
from lhl_platform.registries import Catalog, active, using
from lhl_platform.scrub.suite import SUITE as CONTRACTSCRUB
from lhl_platform.suites import register_suite

if TYPE_CHECKING:
    from lhl_platform.suites.contract import Suite

for _suite in (CLAUSE, LEXFLIP, INSUFFICIENCY, CONTRACTSCRUB):
    register_suite(_suite)
CATALOG: Catalog = active()


@contextmanager
def catalog_with(*suites: Suite) -> Iterator[Catalog]:
    """A catalog of the application's registrations plus these suites, active for the duration (a test's own
    suite: the event types its modules register when first imported meanwhile are its own too); the application's
    catalog is left as it was."""
    with using(CATALOG.copy()) as own:
        for suite in suites:
            register_suite(suite)
        yield own
