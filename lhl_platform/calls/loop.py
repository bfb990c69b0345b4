"""The unit loop every stage runs: concurrent units of work, the durability window, progress.

A unit is what a stage finishes as a whole (a contract's extraction, a verdict, a debated instance). Units
already finished are skipped without taking a slot; the rest run at most `concurrency` at a time, and none
starts while more than `window` finished units await their commit (so a crash costs at most that many). A
finished unit is marked on the writer, which commits between units.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TypeVar

from lhl_platform.calls.budget import LimitRefused, SpendLimitReached, active_limit
from lhl_platform.events.log import StreamWriter

U = TypeVar("U")


# Young-generation threshold while units run (CPython's default is 700).
_GC_THRESHOLD0 = 10_000


@contextlib.contextmanager
def _steady_gc() -> Iterator[None]:
    """While a stage's units run, what was alive before they started (every suite's classes, the corpus, the
    recorded calls) is frozen out of garbage collection and the young generation is collected less often.
    Each answer allocates thousands of short-lived objects, and with a whole platform in the heap the full
    collections they trigger cost the event loop a fifth of its throughput (measured). Undone on exit."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(_GC_THRESHOLD0, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


async def run_units(writer: StreamWriter, units: Sequence[U], work: Callable[[U], Awaitable[None]], *,
                    skip: Callable[[U], bool] | None = None, concurrency: int = 4, window: int | None = None,
                    progress: Callable[[int, int], None] | None = None) -> None:
    """Run `work` on every unit that `skip` does not rule out; `progress(done, total)` after each unit. When the
    spending limit refuses a call (`budget.py`), no further unit starts, those in flight finish, and the loop ends
    with SpendLimitReached once their events are appended (the units left have none: a later run does them)."""
    semaphore = asyncio.Semaphore(max(1, concurrency))
    done = 0
    limit = active_limit()
    left = 0

    async def one(unit: U) -> None:
        nonlocal done, left
        if skip is None or not skip(unit):
            async with semaphore:
                if limit is not None and limit.stopped:
                    left += 1
                    return
                if window is not None:  # no new unit while too many finished ones await their commit
                    await writer.room(window)
                try:
                    await work(unit)
                except LimitRefused:
                    left += 1
                    writer.end_unit()  # what it recorded before the refusal (a debate's first roles) is kept
                    return
                writer.end_unit()
        done += 1
        if progress is not None:
            progress(done, len(units))

    with _steady_gc():
        await asyncio.gather(*(one(u) for u in units))
    if limit is not None and left:
        limit.stop(left)
        raise SpendLimitReached(limit.line())
