"""A suite's commands declared for `lhl` without loading the suite (the pattern of Inspect AI's `@modelapi`
registry: a name and where to import it from, imported on use).

`lhl --help` lists the first word of every command; only a command line that reaches one of a suite's words
imports the module that defines its commands (their arguments and handlers), and only a command that runs loads
the application (`lhl_platform.catalog`). This module imports nothing heavy: the parser is built from it.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lhl_platform.suites.contract import Command


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
