"""Percentile bootstrap intervals for the Risk Direction Index (docs/method.md, section 8).

RDI is the mean of a per-contradiction label (+1 extra_condition, -1 missing_condition, 0 other), so
resampling contradicted instances with replacement is exactly a multinomial draw of the three label
counts: 2,000 resamples cost three numbers each instead of a pass over the instances. The cluster
bootstrap resamples contracts (with all their contradictions).
Each model gets its own random stream derived from (seed, model name), so an interval does not
depend on which other models are in the report. numpy is imported where a stream is drawn: a report whose intervals
are served from the figure cache, or a command that only reads the constants, loads none of it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

DEFAULT_RESAMPLES = 2000
LEVEL = 0.95
# The resamples and seed a report was asked for (`--resamples`, `--seed`), for the suites' section rows, which
# compute their intervals from a connection alone: set by the report around its sections, read where they resample.
_ASKED: ContextVar[tuple[int, int]] = ContextVar("lhl_bootstrap", default=(DEFAULT_RESAMPLES, 0))


@contextmanager
def bootstrap_as(resamples: int, seed: int) -> Iterator[None]:
    """Within this block, `asked_bootstrap()` gives these resamples and this seed."""
    token = _ASKED.set((resamples, seed))
    try:
        yield
    finally:
        _ASKED.reset(token)


def asked_bootstrap() -> tuple[int, int]:
    """(resamples, seed) the report in progress was asked for: (2000, 0) unless it said otherwise."""
    return _ASKED.get()


def rng_for(seed: int, key: str) -> np.random.Generator:
    """The random stream of (seed, key): the same draws whichever other keys are resampled beside it."""
    import numpy as np

    words = np.frombuffer(hashlib.sha256(key.encode()).digest()[:16], dtype=np.uint32)
    return np.random.default_rng(np.random.SeedSequence([seed, *words.tolist()]))


def _interval(samples: np.ndarray) -> tuple[float | None, float | None]:
    import numpy as np

    samples = samples[np.isfinite(samples)]
    if samples.size == 0:
        return None, None
    alpha = (1 - LEVEL) / 2
    low, high = np.quantile(samples, [alpha, 1 - alpha])
    return float(low), float(high)


def rdi_interval(n_extra: int, n_missing: int, n_contradicted: int, *, resamples: int = DEFAULT_RESAMPLES,
                 seed: int = 0, key: str = "") -> tuple[float | None, float | None]:
    """Instance-level bootstrap over contradicted instances pooled over runs."""
    import numpy as np

    if n_contradicted <= 0:
        return None, None
    p = np.array([n_extra, n_missing, n_contradicted - n_extra - n_missing], dtype=float) / n_contradicted
    draws = rng_for(seed, key).multinomial(n_contradicted, p, size=resamples)
    return _interval((draws[:, 0] - draws[:, 1]) / n_contradicted)


def rdi_cluster_interval(extra: Sequence[int], missing: Sequence[int], contradicted: Sequence[int], *,
                         resamples: int = DEFAULT_RESAMPLES, seed: int = 0, key: str = "",
                         n_clusters: int | None = None) -> tuple[float | None, float | None]:
    """Contract-cluster bootstrap. `n_clusters` counts contracts without contradictions too (they
    carry zero weight in RDI but are part of the population being resampled)."""
    import numpy as np

    e, m, c = (np.asarray(x, dtype=float) for x in (extra, missing, contradicted))
    k = int(n_clusters if n_clusters is not None else len(c))
    if c.sum() <= 0 or k <= 0:
        return None, None
    pad = k - len(c)
    if pad > 0:
        e, m, c = (np.concatenate([x, np.zeros(pad)]) for x in (e, m, c))
    picks = rng_for(seed, key).integers(0, k, size=(resamples, k))  # k contracts drawn with replacement
    with np.errstate(invalid="ignore", divide="ignore"):
        samples = (e[picks].sum(axis=1) - m[picks].sum(axis=1)) / c[picks].sum(axis=1)
    return _interval(samples)


def proportion_interval(k: int, n: int, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                        key: str = "") -> tuple[float | None, float | None]:
    """Bootstrap interval of a proportion k/n (resampling the n instances is a binomial draw)."""
    if n <= 0:
        return None, None
    return _interval(rng_for(seed, key).binomial(n, k / n, size=resamples) / n)


def _intervals(samples: list[np.ndarray], index: list[int], size: int) -> tuple[np.ndarray, np.ndarray]:
    """`_interval` of many sample vectors (every value finite) in one quantile pass; NaN where none was drawn."""
    import numpy as np

    low, high = np.full(size, np.nan), np.full(size, np.nan)
    if samples:
        alpha = (1 - LEVEL) / 2
        low[index], high[index] = np.quantile(np.stack(samples), [alpha, 1 - alpha], axis=1)
    return low, high


def proportion_intervals(proportions: Sequence[tuple[int, int, str]], *, resamples: int = DEFAULT_RESAMPLES,
                         seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """`proportion_interval` of many (k, n, key) at once, with the same draws: lows and highs, NaN where n is 0."""
    samples, index = [], []
    for i, (k, n, key) in enumerate(proportions):
        if n > 0:
            samples.append(rng_for(seed, key).binomial(n, k / n, size=resamples) / n)
            index.append(i)
    return _intervals(samples, index, len(proportions))


def rdi_intervals(counts: Sequence[tuple[int, int, int, str]], *, resamples: int = DEFAULT_RESAMPLES,
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """`rdi_interval` of many (n_extra, n_missing, n_contradicted, key) at once, with the same draws."""
    import numpy as np

    samples, index = [], []
    for i, (n_extra, n_missing, n_contradicted, key) in enumerate(counts):
        if n_contradicted > 0:
            p = np.array([n_extra, n_missing, n_contradicted - n_extra - n_missing], dtype=float) / n_contradicted
            draws = rng_for(seed, key).multinomial(n_contradicted, p, size=resamples)
            samples.append((draws[:, 0] - draws[:, 1]) / n_contradicted)
            index.append(i)
    return _intervals(samples, index, len(counts))
