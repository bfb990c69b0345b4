"""Names and ids as inert text: for a terminal (no control characters) and for Markdown (no markup).

A corpus is named after its folder and a contract after its file, so either may hold anything a file name
can: `<img src=x onerror=...>`, a pipe that splits a Markdown table, or terminal escape sequences
(`ESC ] 0 ; title BEL`, `ESC [ 2 J`) that retitle or clear the screen of whoever prints a report. Every
renderer passes what it did not write itself through one of these.
"""

from __future__ import annotations

import re

# Characters that change how text is shown rather than being shown: C0 and C1 controls, DEL, and the
# invisible format characters that reorder or hide text (bidirectional overrides, zero-width marks).
_INVISIBLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")
# Markdown punctuation that can open markup in CommonMark or GFM (emphasis, code, links, tables, strikethrough).
_MARKUP = re.compile(r"([\\`*_\[\]|~])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _escape(match: re.Match[str]) -> str:
    # C0 as `\x1b` (JSON output never holds them raw: json escapes them itself); the rest as `\u009b`, which
    # inside a JSON string is the same escape JSON would use, so a JSON report stays valid and exact.
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every control or invisible format character shown as its escape (`\\x1b`, `\\u009b`), so
    printing it can neither move the cursor, retitle the terminal, nor reorder or hide what follows."""
    return _INVISIBLE.sub(_escape, text)


def is_shown_as_is(text: str, allowed: str = "") -> bool:
    """Whether `printable` would leave `text` unchanged once the characters in `allowed` are set aside."""
    return _INVISIBLE.search(text.translate(dict.fromkeys(map(ord, allowed))) if allowed else text) is None


def markdown_text(text: str) -> str:
    """`text` as literal Markdown: printable, HTML's `& < >` as entities (a raw tag would be rendered as
    HTML), and the punctuation that opens markup backslash-escaped."""
    text = printable(text)
    text = "".join(_ENTITIES.get(c, c) for c in text) if any(c in text for c in _ENTITIES) else text
    return _MARKUP.sub(r"\\\1", text)

