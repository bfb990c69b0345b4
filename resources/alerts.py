"""Alerts for failing checks: one small protocol, a log line by default, a webhook on request.

A hook receives an `Alert` (the check, the asset, the partition if any, its one-line summary and its figures)
and must never break the run that found the problem: delivery errors are logged, not raised.

Which hook is used is one setting (`LhlHome.alerts`, env `LHL_ALERTS`):

* `log` (the default): one warning line on the `lhl.alerts` logger (and so in the run's logs);
* an `http://` or `https://` URL: a JSON POST to that URL (plus the log line);
* `package.module:attribute`: a hook of your own, an object with `send(alert)` or a factory returning one.
"""

from __future__ import annotations

import importlib
import json
import logging
import urllib.request
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

LOG = logging.getLogger("lhl.alerts")


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
        self.logger.warning(alert.line())


class WebhookHook:
    """POST the alert as JSON; a failed delivery is logged (with the alert's own line) and never raised."""

    def __init__(self, url: str, timeout_s: float = 5.0, logger: logging.Logger = LOG) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self.logger = logger

    def send(self, alert: Alert) -> None:
        self.logger.warning(alert.line())
        data = json.dumps(alert.body(), default=str).encode()
        request = urllib.request.Request(self.url, data=data, method="POST",
                                         headers={"Content-Type": "application/json", "User-Agent": "lhl-alerts"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:  # noqa: S310 - user's URL
                response.read()
        except Exception as exc:  # a broken receiver must not fail the run that found the problem
            self.logger.error(f"lhl alert: could not deliver to the webhook ({type(exc).__name__}: {exc})")


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
