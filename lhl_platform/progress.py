"""Progress of a partition: contracts or verdicts done, calls, tokens, spend and ETA."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from lhl_platform.domain.models import Price, Usage
from lhl_platform.domain.redaction import redact
from lhl_platform.domain.text import printable


@dataclass(frozen=True)
class Tick:
    done: int
    total: int
    calls: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int = 0
    failures: int = 0
    cache_write_tokens: int = 0
    batch: bool = False
    cost_usd: float | None = None  # what the calls cost as recorded (None: price the tokens at the bar's rates)
    unpriced: int = 0  # calls whose cost is unknown (the model is priced neither by the table nor its registration)


Progress = Callable[[Tick], None]


@dataclass
class CallTally:
    """Calls, tokens and failures of one partition's work, for metadata and progress."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    cache_write_tokens: int = 0
    batch: bool = False  # the calls went through a provider's batch API (priced at its batch rates)
    cost_usd: float = 0.0  # the recorded cost of the calls whose cost is known
    unpriced: int = 0  # calls whose cost is unknown
    costed: bool = False  # whether the calls counted came with their recorded cost

    def count(self, usage: Usage, cost: float | None | bool = False) -> None:
        """Count a call; `cost` its recorded cost (None: unknown; False: not given)."""
        if cost is None:
            self.unpriced += 1
            self.costed = True
        elif cost is not False:
            self.cost_usd += float(cost)
            self.costed = True
        self.calls += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cached_tokens += usage.cached_tokens
        self.cache_write_tokens += usage.cache_write_tokens

    def tally(self) -> dict[str, int]:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cached_tokens": self.cached_tokens, "cache_write_tokens": self.cache_write_tokens,
                "failed": len(self.failures)}

    def tick(self, done: int, total: int) -> Tick:
        return Tick(done, total, self.calls, self.input_tokens, self.output_tokens, self.cached_tokens,
                    len(self.failures), self.cache_write_tokens, self.batch,
                    self.cost_usd if self.costed else None, self.unpriced)


def cost_usd(price: Price, input_tokens: int, output_tokens: int, cached_tokens: int = 0,
             cache_write_tokens: int = 0, batch: bool = False) -> float:
    """What a call costs at the model's published rates: input the cache served at the cached rate, input
    written to the cache at the cache-write rate, the rest at the input rate; through a batch API at the
    batch rates (the batch discount applies to the cache rates too). `usage_costs.sql` prices the same way."""
    fresh = max(0, input_tokens - cached_tokens - cache_write_tokens)
    if batch:
        scale = price.batch_discount
        return (fresh * price.batch_input_per_mtok + cached_tokens * price.cached_input_per_mtok * scale
                + cache_write_tokens * price.cache_write_per_mtok * scale
                + output_tokens * price.batch_output_per_mtok) / 1_000_000
    return (fresh * price.input_per_mtok + cached_tokens * price.cached_input_per_mtok
            + cache_write_tokens * price.cache_write_per_mtok + output_tokens * price.output_per_mtok) / 1_000_000


class ProgressBar:
    """Progress of a partition on stderr: calls, tokens, spend and ETA.

    Silent for a partition that ends within `quiet_s` (most offline ones); after that a terminal gets one
    line redrawn a few times a second, and anything else (logs, CI, a Dagster run's captured output) a
    plain line every `every_s` seconds and one at the end. `status` shows what a partition is waiting for
    (a provider's batch job, say) on the same terms."""

    def __init__(self, label: str, price: Price | None = None, out: TextIO | None = None, width: int = 24,
                 quiet_s: float = 2.0, every_s: float = 5.0) -> None:
        self.label, self.price, self.out, self.width = label, price or Price(), out or sys.stderr, width
        self.quiet_s, self.every_s = quiet_s, every_s
        self.started = time.monotonic()
        self.tty = self.out.isatty()
        self.shown = False  # whether any line was written
        self.last_shown = 0.0
        self.last_tick: Tick | None = None
        self.first: tuple[float, int] | None = None  # (time, done) of the first tick: the rate is measured from here

    def _due(self, final: bool) -> bool:
        now = time.monotonic()
        if now - self.started < self.quiet_s:
            return False
        if final:
            return True
        return now - self.last_shown >= (0.2 if self.tty else self.every_s)

    def eta(self, tick: Tick) -> float | None:
        """Seconds left at the rate measured since the first tick; None before there is a rate. Not from the
        start: setup (reading the corpus, building prompts) and units resumed from the log say nothing about
        how fast the remaining ones go, and counting them made the first ETA of a 3 s partition 101 s."""
        now = time.monotonic()
        if self.first is None:
            self.first = (now, tick.done)
            return None
        since, done = now - self.first[0], tick.done - self.first[1]
        return since / done * (tick.total - tick.done) if done > 0 and since > 0 else None

    def line(self, tick: Tick) -> str:
        elapsed = time.monotonic() - self.started
        eta = self.eta(tick)
        spend = tick.cost_usd if tick.cost_usd is not None else cost_usd(
            self.price, tick.input_tokens, tick.output_tokens, tick.cached_tokens, tick.cache_write_tokens, tick.batch)
        money = ("cost unknown" if tick.unpriced and tick.unpriced >= tick.calls else
                 f"${spend:.2f} + unknown for {tick.unpriced} calls" if tick.unpriced else f"${spend:.2f}")
        tokens = tick.input_tokens + tick.output_tokens
        return (f"{self.label} {tick.done}/{tick.total} | {tick.calls} calls | {tokens / 1000:.1f}k tok "
                f"({tick.cached_tokens / 1000:.1f}k cached) | {money} | "
                f"{'failed ' + str(tick.failures) + ' | ' if tick.failures else ''}"
                + (f"done in {elapsed:.0f}s" if tick.done >= tick.total
                   else "ETA ..." if eta is None else f"ETA {eta:.0f}s"))

    def __call__(self, tick: Tick) -> None:
        self.last_tick = tick
        if self.first is None:
            self.first = (time.monotonic(), tick.done)
        final = tick.done >= tick.total
        if not self._due(final):
            return
        self._write(self.line(tick), share=tick.done / tick.total if tick.total else 1.0, final=final)

    def status(self, text: str, final: bool = False) -> None:
        """A line about what the partition is doing or waiting for, shown on the same terms as progress."""
        if self._due(final):
            self._write(f"{self.label} {text}", share=None, final=final)

    def _write(self, line: str, share: float | None, final: bool) -> None:
        self.shown, self.last_shown = True, time.monotonic()
        line = printable(redact(line))  # a label or a status names models and may quote a provider
        if self.tty:
            bar = ""
            if share is not None:
                filled = int(self.width * share)
                bar = f"[{'#' * filled}{'.' * (self.width - filled)}] "
            self.out.write(f"\r{bar}{line}\033[K" + ("\n" if final else ""))
        else:
            self.out.write(line + "\n")
        self.out.flush()
