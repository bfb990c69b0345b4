"""What made a Dagster run fail, in one line: the underlying error, not only `Execution of step "x" failed`.

Dagster wraps an exception raised by an asset in its own step error and reports the step's failure with a
generic message; the user's exception (a PermissionError on the events folder, say) is the cause chained
inside. The CLI names that cause, redacted like everything else it prints.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lhl_platform.domain.redaction import redact

_WRAPPERS = {"DagsterExecutionStepExecutionError", "DagsterUserCodeExecutionError", "DagsterResourceFunctionError",
             "DagsterExecutionInterruptedError"}


def _innermost(error: Any) -> Any:
    """The deepest cause of a serialized error, skipping Dagster's own wrappers."""
    while getattr(error, "cause", None) is not None:
        error = error.cause
    return error


def _describe(error: Any) -> str:
    inner = _innermost(error)
    message = " ".join(str(getattr(inner, "message", "") or "").split())
    name = getattr(inner, "cls_name", None)
    if name and name not in _WRAPPERS and not message.startswith(f"{name}:"):
        message = f"{name}: {message}" if message else name
    return message


def failure_detail(events: Iterable[Any]) -> str | None:
    """One line naming the first failed step and its underlying error, or the run's failure message; None
    when the events say nothing about why."""
    fallback: str | None = None
    for event in events:
        if not getattr(event, "is_failure", False):
            continue
        data = getattr(event, "step_failure_data", None) if getattr(event, "is_step_failure", False) else None
        if data is not None and data.error is not None:
            step = f"step {event.step_key}: " if event.step_key else ""
            return redact(f"{step}{_describe(data.error)}")
        if fallback is None and event.message:
            fallback = " ".join(str(event.message).split())
    return redact(fallback) if fallback else None
