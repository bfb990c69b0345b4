"""Progress of a partition: contracts or verdicts done, calls, tokens, spend and ETA."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from lhl_platform.domain.models import Price, Usage


@dataclass(frozen=True)
class Tick:
    done: int
    total: int
    calls: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int = 0
    failures: int = 0


Progress = Callable[[Tick], None]


@dataclass
class CallTally:
    """Calls, tokens and failures of one partition's work, for metadata and progress."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)

    def count(self, usage: Usage) -> None:
        self.calls += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cached_tokens += usage.cached_tokens

    def tally(self) -> dict[str, int]:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cached_tokens": self.cached_tokens, "failed": len(self.failures)}

    def tick(self, done: int, total: int) -> Tick:
        return Tick(done, total, self.calls, self.input_tokens, self.output_tokens, self.cached_tokens,
                    len(self.failures))


def cost_usd(price: Price, input_tokens: int, output_tokens: int, cached_tokens: int = 0) -> float:
    fresh = max(0, input_tokens - cached_tokens)
    return (fresh * price.input_per_mtok + cached_tokens * price.cached_input_per_mtok
            + output_tokens * price.output_per_mtok) / 1_000_000


class ProgressBar:
    """Redraws one line on a terminal; elsewhere (logs, CI) prints a line every tenth of the way."""

    def __init__(self, label: str, price: Price | None = None, out: TextIO | None = None, width: int = 24) -> None:
        self.label, self.price, self.out, self.width = label, price or Price(), out or sys.stderr, width
        self.started = time.monotonic()
        self.last_decile = -1
        self.tty = self.out.isatty()

    def __call__(self, tick: Tick) -> None:
        elapsed = time.monotonic() - self.started
        share = tick.done / tick.total if tick.total else 1.0
        eta = elapsed / share - elapsed if share > 0 else 0.0
        spend = cost_usd(self.price, tick.input_tokens, tick.output_tokens, tick.cached_tokens)
        tokens = tick.input_tokens + tick.output_tokens
        line = (f"{self.label} {tick.done}/{tick.total} | {tick.calls} calls | {tokens / 1000:.1f}k tok "
                f"({tick.cached_tokens / 1000:.1f}k cached) | ${spend:.2f} | "
                f"{'failed ' + str(tick.failures) + ' | ' if tick.failures else ''}ETA {eta:.0f}s")
        if self.tty:
            filled = int(self.width * share)
            self.out.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {line}\033[K")
            if tick.done >= tick.total:
                self.out.write("\n")
            self.out.flush()
        elif int(share * 10) > self.last_decile:
            self.last_decile = int(share * 10)
            self.out.write(line + "\n")
            self.out.flush()
