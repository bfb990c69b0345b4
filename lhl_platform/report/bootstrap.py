"""Bootstrap helpers a suite's report and comparison share: a paired difference of two models on one metric (what
`lhl compare` prints for every suite), the percentile interval of resampled values, and the draws of a cluster
bootstrap. Random streams are derived from the seed and a name (`lhl_platform.stats.bootstrap`), so an interval
does not move when another model joins the report."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lhl_platform.stats.bootstrap import LEVEL, rng_for


@dataclass
class Paired:
    """One metric of two models on the same units: each one's value, a - b, and the interval of the difference."""

    metric: str
    a: float | None
    b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None


def percentile_intervals(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval along axis 0, ignoring undefined (NaN) resamples; NaN where none is defined."""
    alpha = (1 - LEVEL) / 2
    flat = samples.reshape(samples.shape[0], -1)
    low, high = np.full(flat.shape[1], np.nan), np.full(flat.shape[1], np.nan)
    defined = np.isfinite(flat)
    complete = defined.all(axis=0)
    if complete.any():
        low[complete], high[complete] = np.quantile(flat[:, complete], [alpha, 1 - alpha], axis=0)
    for j in np.flatnonzero(~complete & defined.any(axis=0)):  # groups with some undefined resamples
        low[j], high[j] = np.quantile(flat[defined[:, j], j], [alpha, 1 - alpha])
    return low.reshape(samples.shape[1:]), high.reshape(samples.shape[1:])


def cluster_weights(n_clusters: int, resamples: int, seed: int, key: str) -> np.ndarray:
    """How often each of n clusters is drawn in each resample (resamples x n): n draws with replacement."""
    picks = rng_for(seed, key).integers(0, n_clusters, size=(resamples, n_clusters))
    offsets = (np.arange(resamples) * n_clusters)[:, None]
    return np.bincount((picks + offsets).ravel(), minlength=resamples * n_clusters).reshape(
        resamples, n_clusters).astype(float)
