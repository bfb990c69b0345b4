"""Errors as users read them: a validation error as one line naming the field, without library URLs or input
values; any other exception's message on one line."""

from __future__ import annotations

from pydantic import ValidationError


def one_line(exc: ValidationError) -> str:
    """The first error as `path: message` (and how many more there are); never the offending value."""
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"])
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown key"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {message}{more}" if where else f"{message}{more}"


def flat(exc: BaseException) -> str:
    """The exception's message on one line (its whitespace collapsed), or its type's name when it has none."""
    return " ".join(str(exc).split()) or type(exc).__name__
