"""Item-bootstrap percentile intervals for means of per-item values.

Every model figure of the suite is a mean of per-item values over the items where the value is defined
(F2 and recall over all variants; precision over items with TP + FP > 0; ExplAcc over items with an
identified element; over-flag over base items). The bootstrap draws items with replacement, an item
bringing all its runs (its cluster), and recomputes the mean over the defined values of the draw, so an
interval follows exactly the rule its figure follows. A draw with no defined value is skipped; no defined
value at all gives (None, None).

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


def cluster_mean_interval(clusters: Mapping[str, Sequence[float | None]], *, resamples: int = DEFAULT_RESAMPLES,
                          seed: int = 0, key: str = "") -> tuple[float | None, float | None]:
    """Interval of the mean of the defined values, resampling clusters (items) with replacement."""
    names = sorted(clusters)  # a fixed order, so the same data and seed give the same interval
    sums = np.array([sum(v for v in clusters[n] if v is not None) for n in names], dtype=float)
    counts = np.array([sum(v is not None for v in clusters[n]) for n in names], dtype=float)
    if counts.sum() == 0 or resamples <= 0:
        return None, None
    picks = _rng(seed, key).integers(0, len(names), size=(resamples, len(names)))
    drawn = counts[picks].sum(axis=1)
    defined = drawn > 0
    means = sums[picks].sum(axis=1)[defined] / drawn[defined]
    if means.size == 0:
        return None, None
    alpha = (1 - LEVEL) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)
