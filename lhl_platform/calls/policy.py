"""When a stage's events are committed: group commit and the durability window, defined once.

A stage whose model costs money commits its events every `units` finished units of work (contracts,
verdicts, debated instances) or every COMMIT_SECONDS, whichever comes first, on the writer's own thread; and no
new unit starts while `window` finished units await their commit. So a kill -9 costs at most the calls
completed in the last commit interval, never more than the window, plus the calls in flight. An offline model
costs nothing to repeat: its stage commits in large segments.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from lhl_platform.events.log import EventLog, StreamWriter

COMMIT_SECONDS = 0.25
OFFLINE_COMMIT_EVENTS = 5000
OFFLINE_COMMIT_SECONDS = 10.0


@dataclass(frozen=True)
class CommitPolicy:
    """Commit every `units` finished units (or COMMIT_SECONDS); at most `window` finished units uncommitted."""

    units: int

    @property
    def window(self) -> int:
        return 2 * self.units


@contextmanager
def stage_writer(log: EventLog, stream: str, policy: CommitPolicy, durable: bool) -> Iterator[StreamWriter]:
    """A background writer for a stage's stream, committing by `policy` when its calls cost money (`durable`)."""
    writing = (log.writer(stream, background=True, flush_units=policy.units, flush_seconds=COMMIT_SECONDS)
               if durable else
               log.writer(stream, background=True, flush_every=OFFLINE_COMMIT_EVENTS,
                          flush_seconds=OFFLINE_COMMIT_SECONDS))
    with writing as writer:
        yield writer
