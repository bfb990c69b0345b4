"""Alerts for failing checks: one small protocol, a log line by default, a webhook on request.

A hook receives an `Alert` (the check, the asset, the partition if any, its one-line summary and its figures)
and must never break the run that found the problem: delivery errors are logged, not raised.

Which hook is used is one setting (`LhlHome.alerts`, env `LHL_ALERTS`):

* `log` (the default): one warning line on the `lhl.alerts` logger (and so in the run's logs);
* an `http://` or `https://` URL: a JSON POST to that URL (plus the log line);
* `package.module:attribute`: a hook of your own, an object with `send(alert)` or a factory returning one.

A command that runs checks in its own process (`lhl audit`) shows the log lines on the terminal with
`echo_alerts`: only those of the checks it is about (an audit's own suite), each once. Every other suite's
failing checks are still delivered by the hook and recorded in Dagster; they are just not its news.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

LOG = logging.getLogger("lhl.alerts")
RECORD_FIELD = "lhl_alert"  # the Alert a hook's log record carries (`extra`), for `echo_alerts` to pick by


@dataclass(frozen=True)
class Alert:
    check: str
    asset: str
    partition: str | None
    summary: str
    figures: dict[str, Any] = field(default_factory=dict)
    severity: str = "ERROR"
    time: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    def body(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        where = f"{self.asset}[{self.partition}]" if self.partition else self.asset
        return f"lhl alert: check {self.check} failed on {where}: {self.summary}"


class AlertHook(Protocol):
    def send(self, alert: Alert) -> None: ...


class LogHook:
    def __init__(self, logger: logging.Logger = LOG) -> None:
        self.logger = logger

    def send(self, alert: Alert) -> None:
        self.logger.warning(alert.line(), extra={RECORD_FIELD: alert})


class WebhookHook:
    """POST the alert as JSON, retried `attempts` times with a doubling pause (a receiver restarting, a 5xx); a
    delivery that never succeeded is logged (after the alert's own line) and never raised."""

    def __init__(self, url: str, timeout_s: float = 5.0, logger: logging.Logger = LOG, attempts: int = 3,
                 pause_s: float = 0.5) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self.logger = logger
        self.attempts = max(1, attempts)
        self.pause_s = pause_s

    def send(self, alert: Alert) -> None:
        self.logger.warning(alert.line(), extra={RECORD_FIELD: alert})
        data = json.dumps(alert.body(), default=str).encode()
        request = urllib.request.Request(self.url, data=data, method="POST",
                                         headers={"Content-Type": "application/json", "User-Agent": "lhl-alerts"})
        for attempt in range(1, self.attempts + 1):
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:  # noqa: S310 - user's URL
                    response.read()
                return
            except Exception as exc:  # a broken receiver must not fail the run that found the problem
                if attempt == self.attempts:
                    self.logger.error(f"lhl alert: could not deliver to the webhook after {attempt} attempt(s) "
                                      f"({type(exc).__name__}: {exc})")
                    return
                time.sleep(self.pause_s * 2 ** (attempt - 1))


def hook_for(setting: str | None, timeout_s: float = 5.0) -> AlertHook:
    """The hook a setting names: `log` (or nothing), a URL, or `module:attribute`."""
    text = (setting or "log").strip()
    if text in ("", "log"):
        return LogHook()
    if text.startswith(("http://", "https://")):
        return WebhookHook(text, timeout_s)
    module, sep, attribute = text.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(f"alerts must be 'log', an http(s) URL or 'module:attribute', not {text!r}")
    target = getattr(importlib.import_module(module), attribute)
    hook = target if hasattr(target, "send") else target()
    if not hasattr(hook, "send"):
        raise ValueError(f"{text} is not an alert hook (it has no send(alert) method)")
    return hook  # type: ignore[no-any-return]


class _Echo(logging.Handler):
    """Writes the alert lines `keep` accepts, once per (check, asset, partition), and every other record of the
    alerts logger (a webhook that could not be reached, say); drops the alert lines of other checks."""

    def __init__(self, keep: Callable[[Alert], bool], write: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.keep = keep
        self.write = write
        self.seen: set[tuple[str, str, str | None]] = set()

    def emit(self, record: logging.LogRecord) -> None:
        alert = getattr(record, RECORD_FIELD, None)
        if isinstance(alert, Alert):
            key = (alert.check, alert.asset, alert.partition)
            if key in self.seen or not self.keep(alert):
                return
            self.seen.add(key)
        self.write(record.getMessage())


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def echo_alerts(keep: Callable[[Alert], bool], write: Callable[[str], None] = _stderr) -> Iterator[None]:
    """Within the block, the alerts logger's lines reach `write` (stderr) for the alerts `keep` accepts, each
    (check, asset, partition) once, instead of every line Python's last-resort handler would print."""
    handler = _Echo(keep, write)
    LOG.addHandler(handler)
    try:
        yield
    finally:
        LOG.removeHandler(handler)
