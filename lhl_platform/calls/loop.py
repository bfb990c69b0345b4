"""The unit loop every stage runs: concurrent units of work, the durability window, progress.

A unit is what a stage finishes as a whole (a contract's extraction, a verdict, a debated instance). Units
already finished are skipped without taking a slot; the rest run at most `concurrency` at a time, and none
starts while more than `window` finished units await their commit (so a crash costs at most that many). A
finished unit is marked on the writer, which commits between units.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from lhl_platform.events.log import StreamWriter

U = TypeVar("U")


async def run_units(writer: StreamWriter, units: Sequence[U], work: Callable[[U], Awaitable[None]], *,
                    skip: Callable[[U], bool] | None = None, concurrency: int = 4, window: int | None = None,
                    progress: Callable[[int, int], None] | None = None) -> None:
    """Run `work` on every unit that `skip` does not rule out; `progress(done, total)` after each unit."""
    semaphore = asyncio.Semaphore(max(1, concurrency))
    done = 0

    async def one(unit: U) -> None:
        nonlocal done
        if skip is None or not skip(unit):
            async with semaphore:
                if window is not None:  # no new unit while too many finished ones await their commit
                    await writer.room(window)
                await work(unit)
                writer.end_unit()
        done += 1
        if progress is not None:
            progress(done, len(units))

    await asyncio.gather(*(one(u) for u in units))
