"""The application assembled: every suite the platform runs, registered once.

Importing this module registers each suite's event types with the log (its modules register them when they are
imported), its SQL folder with the warehouse and its offline models with the model factory; the Dagster code
location, the report and the command tree read the registered suites (`lhl_platform.suites.suites`). The entry
points import it before anything else: the Dagster code location and the tests on import, the `lhl` command when a
command runs (before it reads or writes the home; its help and argument errors load no suite). A new suite is one
line here, plus, when it adds commands, one declaration in `lhl_platform.catalog_commands` (the command tree is
built from that light module, and tests/test_lazy_cli.py checks that the two agree).
"""

from __future__ import annotations

import lhl_platform.debate.events
import lhl_platform.extraction.events
import lhl_platform.judging.events
import lhl_platform.lexflip.events  # noqa: F401  (the modules that register the suites' event types)
from lhl_platform.clause.suite import SUITE as CLAUSE
from lhl_platform.insufficiency.suite import SUITE as INSUFFICIENCY
from lhl_platform.lexflip.suite import SUITE as LEXFLIP
from lhl_platform.scrub.suite import SUITE as CONTRACTSCRUB
from lhl_platform.suites import register_suite

for _suite in (CLAUSE, LEXFLIP, INSUFFICIENCY):
    register_suite(_suite)
register_suite(CONTRACTSCRUB)
