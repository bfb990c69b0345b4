"""A spending limit every audit honours: never passed, whatever the concurrency.

Before each call the ledger reserves the most the call can cost: every input token it can send (an upper bound:
each UTF-8 byte of its messages and output schema, plus framing) at the dearer of the input and cache-write rates,
and `max_output_tokens` (plus a thinking budget) at the output rate, twice for a task whose reply may be repaired
once. It starts only when the spend so far plus every reservation in flight plus its own stays within the limit;
otherwise it waits for calls in flight to settle (each then counts what it cost, from the usage the provider
reported), and when nothing is in flight and it still does not fit, the limit stops the audit: no further unit
starts, the calls in flight finish and are recorded, and the stage ends with `SpendLimitReached`. A batch reserves
its whole worst case before it is submitted. A model whose cost is unknown is refused under a limit.

Checking a reservation is a few additions (O(1)); the lock-free arithmetic is safe because a stage's units share
one event loop. The limit is the command's (`--max-cost`, active for the process while it runs: every partition it
runs shares it) or, without one, a model's registered `params.audit.max_cost_usd`, one per audit round.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field

from lhl_platform.calls.exit_codes import LIMIT_EXIT_CODE as LIMIT_EXIT_CODE  # the CLI reads it without this module
from lhl_platform.events.kinds import register_events
from lhl_platform.events.log import EventLog
from lhl_platform.providers.base import ModelRequest, Task

SPENDING_STREAM = "spending"
LIMIT_REACHED = "spend.limit_reached"
FRAMING_TOKENS = 1024  # a request's framing beyond its messages and schema (roles, tool definitions, templates)
MESSAGE_TOKENS = 8


class SpendLimitReached(Exception):
    """The spending limit stopped the stage: the calls made are recorded; running again resumes from them."""


class UnknownCost(ValueError):
    """A model whose cost is unknown was asked to answer under a spending limit."""


class LimitRefused(BaseException):
    """The limit refused a unit's call: the unit is left for a later run. A BaseException, so no stage's handler
    of call failures records it as a failed call (the unit loop catches it)."""


class LimitStopped(BaseModel):
    """A spending limit stopped an audit (or a debate): what it had spent, of which limit, with how many calls made
    and units of work left; running it again resumes without repeating a call."""

    limit_usd: float
    spent_usd: float
    calls: int
    left: int
    scope: str = Field(description="what the limit covered: the command, or one model's audit round")
    source: Literal["command", "registered"]


register_events({LIMIT_REACHED: LimitStopped}, owner=__name__)


def usd(amount: float) -> str:
    return f"${amount:,.4f}" if amount < 1 else f"${amount:,.2f}"


def _utf8(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


@lru_cache(maxsize=256)
def _schema_bytes(task: type[Task]) -> int:
    if task.free_text:
        return 0
    return len(json.dumps(task.output.model_json_schema()))


def input_bound(request: ModelRequest) -> int:
    """At most how many input tokens the request can be billed for: a token is at least one byte of what it
    encodes, in every provider's tokenizer."""
    return (sum(_utf8(m.content) for m in request.messages) + MESSAGE_TOKENS * len(request.messages)
            + _schema_bytes(type(request.task)) + FRAMING_TOKENS)


class SpendLimit:
    """The limit, what was spent under it and what the calls in flight may still cost."""

    def __init__(self, limit_usd: float, *, scope: str, source: Literal["command", "registered"] = "command",
                 on_stop: Callable[[SpendLimit], None] | None = None) -> None:
        self.limit_usd = limit_usd
        self.scope, self.source = scope, source
        self.spent = 0.0
        self.in_flight = 0.0
        self.reservations = 0  # counted apart from their sum, which float rounding never brings back to exactly 0
        self.calls = 0
        self.left = 0
        self.stopped = False
        self.recorded = False
        self.on_stop = on_stop
        self._settled: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _event(self) -> asyncio.Event:
        loop = asyncio.get_running_loop()
        if self._settled is None or self._loop is not loop:
            self._settled, self._loop = asyncio.Event(), loop
        return self._settled

    def fits(self, worst: float) -> bool:
        return self.spent + self.in_flight + worst <= self.limit_usd

    async def reserve(self, worst: float) -> bool:
        """Reserve `worst` for a call about to start; False when the limit stops it (and every later one)."""
        while not self.stopped:
            if self.fits(worst):
                self.in_flight += worst
                self.reservations += 1
                return True
            if self.reservations == 0:
                self.stop(0)
                break
            await self._event().wait()  # a call in flight settles, maybe for less than it reserved
        return False

    def try_reserve(self, worst: float) -> bool:
        """Reserve without waiting (a batch job's requests, before it is submitted)."""
        if self.stopped or not self.fits(worst):
            return False
        self.in_flight += worst
        self.reservations += 1
        return True

    def hold(self, worst: float) -> None:
        """Count a cost already committed (a batch job submitted by an earlier run, being polled)."""
        self.in_flight += worst
        self.reservations += 1

    def settle(self, worst: float, cost: float, calls: int = 1) -> None:
        """A call (or a batch's calls) ended: its reservation becomes what it cost."""
        self.reservations = max(self.reservations - 1, 0)
        self.in_flight = max(self.in_flight - worst, 0.0) if self.reservations else 0.0
        self.spent += cost
        self.calls += calls
        if self._settled is not None:
            settled, self._settled = self._settled, None
            settled.set()

    def release(self, worst: float) -> None:
        """A reservation not spent (a batch request that was not submitted)."""
        self.settle(worst, 0.0, calls=0)

    def stop(self, left: int) -> None:
        self.stopped = True
        self.left += left
        if self not in _STOPPED:
            _STOPPED.append(self)

    def line(self, left: int | None = None) -> str:
        """The stop in one line: spent, limit, calls made and left, and how to go on."""
        return (f"spending limit reached: spent {usd(self.spent)} of the {usd(self.limit_usd)} limit ({self.scope}); "
                f"{self.calls:,} call(s) made, {self.left if left is None else left:,} left; run it again to go on, "
                "with --max-cost for what the rest may cost (the calls made are recorded and not repeated)")

    def record(self, log: EventLog, left: int | None = None) -> None:
        """The stop as an event (once)."""
        if self.recorded or not self.stopped:
            return
        if left is not None:
            self.left = left
        self.recorded = True
        at = datetime.now(UTC).isoformat()
        log.append(SPENDING_STREAM, LIMIT_REACHED, self.scope, f"{LIMIT_REACHED}:{self.scope}:{at}",
                   LimitStopped(limit_usd=self.limit_usd, spent_usd=round(self.spent, 9), calls=self.calls,
                                left=self.left, scope=self.scope, source=self.source))


_ACTIVE: list[SpendLimit] = []
_ROUNDS: dict[str, SpendLimit] = {}
_STOPPED: list[SpendLimit] = []


def new_command() -> None:
    """Forget the limits of an earlier command run in this process (a test runs many)."""
    _STOPPED.clear()
    _ROUNDS.clear()


def stopped_limit() -> SpendLimit | None:
    """The last limit that stopped work in this process, if any (a command reports it and exits with its code)."""
    return _STOPPED[-1] if _STOPPED else None


def active_limit() -> SpendLimit | None:
    """The limit the calls of this process honour now, if any."""
    return _ACTIVE[-1] if _ACTIVE else None


@contextlib.contextmanager
def spending_limit(limit_usd: float | None, *, scope: str) -> Iterator[SpendLimit | None]:
    """A command's limit (`--max-cost`), shared by every partition it runs in this process; None: no limit."""
    if limit_usd is None:
        yield None
        return
    limit = SpendLimit(limit_usd, scope=scope)
    _ACTIVE.append(limit)
    try:
        yield limit
    finally:
        _ACTIVE.remove(limit)


@contextlib.contextmanager
def round_limit(limit_usd: float | None, *, scope: str, log: EventLog) -> Iterator[SpendLimit | None]:
    """A model's registered limit for one audit round (`params.audit.max_cost_usd`), unless a command's limit is
    active (an explicit --max-cost overrides it). The stages of one round in one process share it; a stop is
    recorded as an event when the stage ends."""
    if limit_usd is None or active_limit() is not None:
        yield active_limit()
        return
    limit = _ROUNDS.get(scope)
    if limit is None or limit.limit_usd != limit_usd:
        limit = _ROUNDS[scope] = SpendLimit(limit_usd, scope=scope, source="registered")
    _ACTIVE.append(limit)
    try:
        yield limit
    finally:
        _ACTIVE.remove(limit)
        limit.record(log)
