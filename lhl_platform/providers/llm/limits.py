"""Throughput control for one model: concurrency, requests and tokens per minute, retries, circuit breaker."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

from lhl_platform.domain.params import ModelParams


class TokenBucket:
    """Refills `rate_per_minute` units per minute, holding at most one minute's worth."""

    def __init__(self, rate_per_minute: float) -> None:
        self.capacity = rate_per_minute
        self.tokens = rate_per_minute
        self.rate = rate_per_minute / 60.0
        self.updated = time.monotonic()
        self.lock = asyncio.Lock()

    async def take(self, amount: float) -> None:
        amount = min(amount, self.capacity)  # a request larger than a minute's budget waits for a full bucket
        async with self.lock:
            while True:
                now = time.monotonic()
                self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
                self.updated = now
                if self.tokens >= amount:
                    self.tokens -= amount
                    return
                await asyncio.sleep((amount - self.tokens) / self.rate)


@dataclass
class CircuitBreaker:
    """Opens after `threshold` consecutive server errors and pauses every call for `cooldown_s`."""

    threshold: int
    cooldown_s: float
    failures: int = 0
    open_until: float = 0.0
    opened: int = field(default=0)

    async def wait(self) -> None:
        delay = self.open_until - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)

    def record(self, server_error: bool) -> None:
        if not server_error:
            self.failures = 0
            return
        self.failures += 1
        if self.failures >= self.threshold:
            self.open_until = time.monotonic() + self.cooldown_s
            self.failures = 0
            self.opened += 1


def backoff_delay(attempt: int, limits: ModelParams, retry_after: float | None, rng: random.Random) -> float:
    """Exponential backoff with full jitter; a server's Retry-After is a floor, never shortened."""
    ceiling = min(limits.backoff_max_s, limits.backoff_base_s * (2 ** attempt))
    delay = rng.uniform(0, ceiling)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return min(delay, max(limits.backoff_max_s, retry_after or 0.0))


class Throttle:
    """Everything a model's calls pass through before reaching the provider."""

    def __init__(self, limits: ModelParams) -> None:
        self.limits = limits
        self.slots = asyncio.Semaphore(limits.concurrency)
        self.requests = TokenBucket(limits.rpm) if limits.rpm else None
        self.tokens = TokenBucket(limits.tpm) if limits.tpm else None
        self.breaker = CircuitBreaker(limits.breaker_threshold, limits.breaker_cooldown_s)

    async def admit(self, tokens: int) -> None:
        await self.breaker.wait()
        if self.requests:
            await self.requests.take(1)
        if self.tokens:
            await self.tokens.take(tokens)
