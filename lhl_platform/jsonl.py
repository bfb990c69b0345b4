"""Reading JSON Lines files whole, and one-line descriptions of what is wrong with a line.

The suites' loaders (item sets, imported answers and judgments) read their files with `read_lines` or
`parse_lines` and turn a Pydantic error into a sentence with `describe`, so a bad input is always one clear
line: `FILE: line N: <what is wrong>`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError


class JsonlError(ValueError):
    """A file that cannot be taken whole; the message names the file and, where it applies, the line."""


# The json module's messages, as the clause that follows "not valid JSON: " (each then says where: "at column N").
_JSON_PROBLEMS = {
    "Unterminated string starting at": "unterminated string",
    "Invalid control character at": "a control character inside a string",
    "Expecting value": "expected a value",
    "Expecting property name enclosed in double quotes": "expected a property name in double quotes",
    "Expecting ':' delimiter": "expected ':' after a property name",
    "Expecting ',' delimiter": "expected ',' between two values",
    "Extra data": "more text after the JSON value",
    "Invalid \\escape": "an invalid backslash escape",
    "Invalid \\uXXXX escape": "an invalid \\uXXXX escape",
}


def json_problem(exc: json.JSONDecodeError) -> str:
    """What is wrong with a JSON text, as a clause: "unterminated string at column 39" (never "at at")."""
    message = _JSON_PROBLEMS.get(exc.msg) or exc.msg.removesuffix(" at").removesuffix(" starting")
    message = message[:1].lower() + message[1:]
    where = f"line {exc.lineno} column {exc.colno}" if exc.lineno > 1 else f"column {exc.colno}"
    return f"{message} at {where}"


def read_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; the first line that is not a JSON object raises."""
    if not path.is_file():
        raise JsonlError(f"{path}: no such file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise JsonlError(f"{path}: not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    return parse_lines(text, str(path))


def parse_lines(text: str, source: str) -> list[tuple[int, dict[str, Any]]]:
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue  # a blank line (a trailing newline, say) holds no record
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise JsonlError(f"{source}: line {number}: not valid JSON: {json_problem(exc)}") from None
        if not isinstance(value, dict):
            raise JsonlError(f"{source}: line {number}: expected a JSON object, got {type(value).__name__}")
        rows.append((number, value))
    if not rows:
        raise JsonlError(f"{source}: no records (the file is empty)")
    return rows


def _where(loc: Iterable[int | str]) -> str:
    """`missing_elements[1].category` for the location ('missing_elements', 1, 'category')."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def describe(exc: ValidationError, model: type[BaseModel]) -> str:
    """The first problem of a validation error as one sentence; unknown fields are named as unmappable."""
    first = exc.errors()[0]
    where = _where(first["loc"])
    kind = first["type"]
    if kind == "extra_forbidden":
        return f"field {where!r} cannot be mapped to the format (known fields: {', '.join(model.model_fields)})"
    if kind == "missing":
        return f"field {where!r} is missing"
    message = str(first["msg"]).removeprefix("Value error, ")
    shown = json.dumps(first.get("input"), ensure_ascii=False, default=str)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return f"{where}: {message} (got {shown})" if where else f"{message}"
