"""The commands the catalog's suites add to `lhl`, declared without importing the suites.

`lhl_platform.catalog` registers each suite whole (its stages, SQL, report, event types); the command tree is
built from this module instead, so `lhl --help`, `lhl X --help` and an argument error load no suite. A suite
with commands declares them here as well as in its `Suite.commands` (tests/test_lazy_cli.py checks the two
agree); a suite registered at run time (a test's, a plug-in's) adds its commands from `Suite.commands`.
"""

from __future__ import annotations

from lhl_platform.suites.declared import DeclaredCommands

DECLARED: tuple[DeclaredCommands, ...] = (
    DeclaredCommands("insufficiency", "InsufficiencyBench", ("ingest", "import", "insufficiency"),
                     "lhl_platform.insufficiency.commands"),
    DeclaredCommands("contractscrub", "ContractScrub", ("scrub", "ingest", "import"), "lhl_platform.scrub.commands"),
)
