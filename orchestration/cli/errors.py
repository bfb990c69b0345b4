"""A failed command in one line: the file or resource, and the cause; the full traceback in the home's log.

Library errors are not written for a terminal: DuckDB's and SQLAlchemy's span many lines (SQL, parameters,
a link), and an unexpected exception would otherwise print a 30- to 100-line traceback. Each is reduced here
to what failed and why, naming what it was working on (the warehouse, Dagster's storage, a file); the
traceback goes to `<home>/logs/lhl.log` for whoever has to dig further. Both are redacted.
"""

from __future__ import annotations

import contextlib
import os
import traceback
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from lhl_platform.domain.errors import one_line
from lhl_platform.domain.redaction import redact
from lhl_platform.domain.text import printable
from lhl_platform.home import Home

LOG_NAME = Path("logs") / "lhl.log"
LOG_LIMIT = 1_000_000  # bytes; past this the log is rotated to lhl.log.1
# Errors whose message was written for the user: no pointer to the traceback.
EXPECTED: tuple[type[BaseException], ...] = (ValidationError, ValueError, LookupError)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _first(text: str) -> str:
    return _flat(next((line for line in text.splitlines() if line.strip()), text))


def _module(exc: BaseException) -> str:
    return type(exc).__module__.split(".")[0].lstrip("_")


def describe(exc: BaseException, home: Home, command: str) -> str:
    """The failure as one line, naming the file or resource it concerns and the cause."""
    if isinstance(exc, ValidationError):
        return one_line(exc)
    module = _module(exc)
    if module == "duckdb":
        return f"warehouse {home.warehouse_path}: {_first(str(exc))}"
    if module == "sqlalchemy":
        orig = getattr(exc, "orig", None)
        cause = _first(str(orig)) if orig is not None else _first(str(exc).split("\n[SQL:")[0])
        where = "the publishing database" if command == "publish" else f"Dagster storage in {home.dagster_dir}"
        return f"{where}: {cause} ({type(orig).__name__ if orig is not None else type(exc).__name__})"
    if isinstance(exc, OSError) and exc.filename is not None:
        files = str(exc.filename) + (f" -> {exc.filename2}" if exc.filename2 is not None else "")
        return f"{files}: {exc.strerror or type(exc).__name__}"
    message = _flat(str(exc))
    if isinstance(exc, OSError) and exc.strerror and message.startswith(f"[Errno {exc.errno}] "):
        message = exc.strerror  # "[Errno 32] Broken pipe" is the system's way of saying "broken pipe"
    if module == "dagster" and message:
        return f"Dagster instance in {home.dagster_dir}: {_first(str(exc))}"
    if isinstance(exc, EXPECTED + (RuntimeError, OSError)):
        return message or type(exc).__name__
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def log_failure(exc: BaseException, home: Home, command: str) -> Path | None:
    """Append the traceback to `<home>/logs/lhl.log` when the home exists; the log's path, or None."""
    if not home.root.is_dir():
        return None
    path = home.root / LOG_NAME
    text = "".join(traceback.format_exception(exc))
    entry = f"--- {datetime.now(UTC).isoformat(timespec='seconds')} lhl {command} (pid {os.getpid()})\n{text}\n"
    try:
        path.parent.mkdir(exist_ok=True)
        if path.exists() and path.stat().st_size > LOG_LIMIT:
            os.replace(path, path.with_name(f"{path.name}.1"))
        with path.open("a", encoding="utf-8") as fh:
            fh.write(redact(entry))
    except OSError:
        return None  # a read-only or full home: the one line on stderr still says what failed
    return path


def report(exc: BaseException, home: Home, command: str, expected: tuple[type[BaseException], ...] = ()) -> str:
    """The line to print for a failed command (redacted and printable), after logging its traceback; it
    points to the log unless the error is one written for the user (`expected`)."""
    logged = log_failure(exc, home, command)
    # A message written for the user is the whole line (no class name before it).
    line = (_flat(str(exc)) or type(exc).__name__) if isinstance(exc, expected) else describe(exc, home, command)
    if logged is not None and not isinstance(exc, EXPECTED + expected):
        line += f" (traceback in {logged})"
    return printable(redact(line))


def home_problem(home: Home) -> str | None:
    """Why the home cannot be used at all (it exists and is not a folder), or None."""
    with contextlib.suppress(OSError):
        if home.root.exists() and not home.root.is_dir():
            return f"home {home.root} is not a directory (set --home or LHL_HOME to a folder)"
    return None
