"""Base-query cluster-bootstrap percentile intervals for means of per-item values.

Every model figure of the suite is a mean of per-item values over the items where the value is defined
(F2 and recall over all variants; precision over items with TP + FP > 0; ExplAcc over items with an
identified element; over-flag over base items). The variants of one base query share its facts, its domain and
most of its sentences, so they are not independent draws: the bootstrap resamples **base queries** with
replacement, a base bringing all its variants and all their runs (its cluster, keyed by `base_id`), and
recomputes the mean over the defined values of the draw, so an interval follows exactly the rule its figure
follows and is as wide as the number of independent scenarios warrants. A draw with no defined value is
skipped; no defined value at all gives (None, None).

Each (seed, key) pair has its own random stream, so an interval does not depend on which other models or
metrics a report contains.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import numpy as np

DEFAULT_RESAMPLES = 2000
LEVEL = 0.95


def _rng(seed: int, key: str) -> np.random.Generator:
    words = np.frombuffer(hashlib.sha256(key.encode()).digest()[:16], dtype=np.uint32)
    return np.random.default_rng(np.random.SeedSequence([seed, *words.tolist()]))


def cluster_draws(clusters: Mapping[str, Sequence[float | None]], *, resamples: int = DEFAULT_RESAMPLES,
                  seed: int = 0, key: str = "") -> tuple[list[str], np.ndarray]:
    """The clusters in their fixed order and the bootstrap draws: `resamples` rows of cluster indices, each a
    draw of as many clusters as there are, with replacement (every value of a drawn cluster comes with it)."""
    names = sorted(clusters)  # a fixed order, so the same data and seed give the same interval
    return names, _rng(seed, key).integers(0, len(names), size=(max(resamples, 0), len(names)))


def cluster_means(clusters: Mapping[str, Sequence[float | None]], *, resamples: int = DEFAULT_RESAMPLES,
                  seed: int = 0, key: str = "") -> np.ndarray:
    """The mean of the defined values in each bootstrap draw of whole clusters (draws with none left out)."""
    names, picks = cluster_draws(clusters, resamples=resamples, seed=seed, key=key)
    sums = np.array([sum(v for v in clusters[n] if v is not None) for n in names], dtype=float)
    counts = np.array([sum(v is not None for v in clusters[n]) for n in names], dtype=float)
    if not names or counts.sum() == 0 or picks.size == 0:
        return np.zeros(0)
    drawn = counts[picks].sum(axis=1)
    defined = drawn > 0
    means: np.ndarray = sums[picks].sum(axis=1)[defined] / drawn[defined]
    return means


def cluster_mean_interval(clusters: Mapping[str, Sequence[float | None]], *, resamples: int = DEFAULT_RESAMPLES,
                          seed: int = 0, key: str = "") -> tuple[float | None, float | None]:
    """Interval of the mean of the defined values, resampling clusters (base queries) with replacement."""
    means = cluster_means(clusters, resamples=resamples, seed=seed, key=key)
    if means.size == 0:
        return None, None
    alpha = (1 - LEVEL) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)
