"""A suite declared without loading it: its commands, for `lhl` (`DeclaredCommands`), and its warehouse parts, for the
catalog (`DeclaredSuite`: SQL folder, scope, event types; the suite's stages, scoring and report load on use).

A suite's commands are declared for `lhl` without loading the suite (the pattern of Inspect AI's `@modelapi`
registry: a name and where to import it from, imported on use).

`lhl --help` lists the first word of every command; only a command line that reaches one of a suite's words
imports the module that defines its commands (their arguments and handlers), and only a command that runs loads
the application (`lhl_platform.catalog`). This module imports nothing heavy: the parser is built from it.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lhl_platform.suites.contract import Command, Suite
    from lhl_platform.warehouse.scope import SuiteScope
    from lhl_platform.warehouse.sources import SourceTable


@dataclass(frozen=True)
class DeclaredCommands:
    """The commands of suite `suite` (shown as `title`): each starts with one of `words` (`lhl WORD ...`) and
    `module`'s `COMMANDS` defines them (the same tuple the suite's `commands` holds)."""

    suite: str
    title: str
    words: tuple[str, ...]
    module: str

    def load(self) -> Sequence[Command]:
        commands: Sequence[Command] = importlib.import_module(self.module).COMMANDS
        stray = sorted({c.path[0] for c in commands} - set(self.words))
        if stray:
            raise LookupError(f"{self.module} defines commands starting with {', '.join(stray)}, which the "
                              f"declaration of suite {self.suite} does not name")
        single = [" ".join(c.path) for c in commands if len(c.path) < 2]
        if single:
            raise LookupError(f"{self.module} defines {', '.join(single)} outside a group; a declared command "
                              "is `lhl WORD NAME`")
        return commands


@dataclass(frozen=True)
class DeclaredSuite:
    """A suite as the catalog declares it before loading it: what every command's warehouse needs without the
    suite's stages, scoring or report. `sql` is its folder of SQL models and `scope` its scope (None: the clause
    suite's); `events` the light modules of its event types (each registers its types on import, or holds them in
    `EVENT_PAYLOADS`, registered here); `sources` the tables beside the events its models read; `module` the
    module whose `SUITE` is the suite, imported on first lookup."""

    name: str
    module: str
    sql: Path
    events: tuple[str, ...] = ()
    scope: SuiteScope | None = None
    sources: tuple[SourceTable, ...] = ()

    def register_events(self) -> None:
        """Declare its event modules, imported when event types are first read."""
        from lhl_platform.events.kinds import declare_event_module

        for name in self.events:
            declare_event_module(name)

    def load(self) -> None:
        """Import the suite and register it (the active catalog is the one it was declared in)."""
        from lhl_platform.suites import register_suite

        register_suite(importlib.import_module(self.module).SUITE)

    def check(self, suite: Suite) -> None:
        """The loaded suite is the one declared: the same name, SQL folder, scope and source tables."""
        for part, declared, loaded in (("name", self.name, suite.name), ("sql", self.sql, suite.sql),
                                       ("scope", self.scope, suite.scope), ("sources", self.sources, suite.sources)):
            if declared != loaded:
                raise ValueError(f"suite {self.name!r} ({self.module}) has {part} {loaded!r}; its declaration "
                                 f"in the catalog says {declared!r}")
