"""The last pass of every Markdown and HTML report: no snake_case identifier reaches a reader outside a code span.
Check names, category names, scheme names and metric names that prose and tables carry from the marts are written
as their labels (`labels.label`: `over_flag` -> "over-flag", `defined_terms` -> "defined terms"); the JSON and CSV
keep the identifiers. Names that come from outside (systems, judges, the corpus) are data and kept as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lhl_platform.report.labels import label

# a snake_case word (Markdown may escape its underscores), not part of a path, module, address or file name
_SNAKE = re.compile(r"(?<![\w./:@`\\-])([a-z][a-z0-9]*(?:\\?_[a-z0-9]+)+)(?![\w/`-]|\.\w)")
_MD_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)
_HTML_SKIP = re.compile(r"(<(style|code|script|pre)\b.*?</\2>|<[^>]*>)", re.S)


def _labelled(text: str, keep: frozenset[str]) -> str:
    def one(m: re.Match[str]) -> str:
        word = m.group(1).replace("\\_", "_")
        return m.group(1) if word in keep else label(word)

    return _SNAKE.sub(one, text)


def humane_markdown(page: str, keep: Iterable[str] = ()) -> str:
    """The page with every snake_case word outside code spans written as its label; `keep`: names left as is."""
    kept = frozenset(keep)
    parts = _MD_CODE.split(page)
    return "".join(p if p.startswith("`") else _labelled(p, kept) for p in parts)


def humane_html(page: str, keep: Iterable[str] = ()) -> str:
    """The same for an HTML page's text (tags, attributes, code, styles and scripts left alone)."""
    kept = frozenset(keep)
    out, at = [], 0
    for m in _HTML_SKIP.finditer(page):
        out.append(_labelled(page[at:m.start()], kept))
        out.append(m.group(0))
        at = m.end()
    out.append(_labelled(page[at:], kept))
    return "".join(out)
