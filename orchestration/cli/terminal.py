"""What the CLI prints passes one guard: credentials redacted, control characters shown as escapes.

Reports and lists print names that come from outside (a corpus folder, a contract file, a model id), and
errors and logs may quote what a server said. Both standard streams of a command are wrapped, so nothing
printed can carry a key to the terminal (or a CI log) or drive the terminal with escape sequences. Two
kinds of sequence pass, since the progress bar and Dagster's console log use them and they only colour
or tidy a line: SGR colours (`ESC [ 1;33 m`) and erase-in-line (`ESC [ K`), plus tab, newline and carriage
return. Everything else, a title change (`ESC ] 0 ; ... BEL`), a screen clear (`ESC [ 2 J`), cursor
movement or a bidirectional override, is printed as its escape (`\\x1b`) instead.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from lhl_platform.domain.redaction import redact
from lhl_platform.domain.text import is_shown_as_is, printable

_ALLOWED = re.compile(r"\x1b\[[0-9;]*[mK]|[\t\n\r]")


def inert(text: str) -> str:
    """`text` as the guard prints it: redacted, and with every control character but the allowed ones escaped."""
    text = redact(text)
    if is_shown_as_is(text, allowed="\t\n\r"):  # one scan of a whole report, not one per line
        return text
    parts, last = [], 0
    for match in _ALLOWED.finditer(text):
        parts += [printable(text[last:match.start()]), match.group(0)]
        last = match.end()
    parts.append(printable(text[last:]))
    return "".join(parts)


class GuardedStream:
    """A text stream that writes through `inert`; everything else (fileno, isatty, encoding) is the wrapped one's."""

    def __init__(self, wrapped: TextIO) -> None:
        self.wrapped = wrapped

    def write(self, text: str) -> int:
        self.wrapped.write(inert(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


@contextlib.contextmanager
def guarded_output() -> Iterator[None]:
    """Wrap sys.stdout and sys.stderr for the duration of one command."""
    before = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = GuardedStream(before[0]), GuardedStream(before[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = before
