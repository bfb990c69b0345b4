"""Agreement between two judges that labelled the same true positives.

Each row is one TP (model, run, contract, clause type) with judge A's and judge B's verdict and
mismatch type. Reported:

- Cohen's kappa on the binary verdict (supported vs contradicted), over rows both judges labelled;
- Cohen's kappa on the direction, over rows both judges called contradicted: missing_condition vs
  extra_condition vs any other mismatch type;
- the two confusion tables (rows: judge A, columns: judge B);
- per extractor model, the Risk Direction Index under each judge, RDI = (n_extra - n_missing) /
  n_contradicted, their difference `rdi_shift` = RDI_B - RDI_A, and a paired contract-cluster
  bootstrap interval for it: contracts are drawn with replacement (all runs and clause types of a
  drawn contract come with it) and both RDIs are recomputed on the same draw.

Kappa is null when it is undefined: no rows, or chance agreement of 1 (both judges used a single
and the same label throughout). An RDI is null without contradictions, and so is a shift that needs
it. Counting is vectorised with numpy (integer codes and bincount), so tens of thousands of rows
cost milliseconds; a bootstrap draw is a multinomial weight vector over contracts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from pydantic import Field, field_validator

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.domain.models import MismatchType, VerdictLabel

DEFAULT_RESAMPLES = 2000
LEVEL = 0.95
BINARY_LABELS = ("supported", "contradicted")
DIRECTION_LABELS = ("missing_condition", "extra_condition", "other")


class AgreementRow(_Frozen):
    """One true positive as labelled by judge A and judge B (None: that judge gave no verdict)."""

    model: str = Field(min_length=1)
    run: int = Field(ge=1)
    contract_id: str = Field(min_length=1)
    clause_type: str
    verdict_a: VerdictLabel | None = None
    mismatch_a: MismatchType | None = None
    verdict_b: VerdictLabel | None = None
    mismatch_b: MismatchType | None = None

    @field_validator("verdict_a", "verdict_b", "mismatch_a", "mismatch_b", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if value is None or (isinstance(value, str) and not value.strip()) else value


class Confusion(_Frozen):
    labels: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]  # counts[i][j]: judge A said labels[i], judge B labels[j]


class ModelShift(_Frozen):
    model: str
    n: int  # true positives both judges labelled
    contracts: int
    contradicted_a: int
    contradicted_b: int
    rdi_a: float | None
    rdi_b: float | None
    rdi_shift: float | None  # rdi_b - rdi_a
    rdi_shift_ci_low: float | None
    rdi_shift_ci_high: float | None


class AgreementResult(_Frozen):
    n: int  # rows both judges labelled
    excluded: int  # rows at least one judge left unlabelled
    agreement_binary: float | None  # observed share of equal verdicts
    kappa_binary: float | None
    n_direction: int  # rows both judges called contradicted
    agreement_direction: float | None
    kappa_direction: float | None
    confusion_binary: Confusion
    confusion_direction: Confusion
    models: tuple[ModelShift, ...]
    resamples: int
    seed: int


def cohen_kappa(table: np.ndarray) -> float | None:
    """Cohen's kappa of a square confusion table; None when undefined (no rows, chance agreement 1)."""
    n = float(table.sum())
    if n <= 0:
        return None
    observed = float(np.trace(table)) / n
    expected = float((table.sum(axis=1) * table.sum(axis=0)).sum()) / (n * n)
    if expected >= 1.0 - 1e-12:
        return None
    return (observed - expected) / (1.0 - expected)


def _rng(seed: int, key: str) -> np.random.Generator:
    words = np.frombuffer(hashlib.sha256(key.encode()).digest()[:16], dtype=np.uint32)
    return np.random.default_rng(np.random.SeedSequence([seed, *words.tolist()]))


def _direction(mismatch: MismatchType | None) -> int:
    if mismatch is MismatchType.MISSING_CONDITION:
        return 0
    if mismatch is MismatchType.EXTRA_CONDITION:
        return 1
    return 2


def _confusion(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(a * k + b, minlength=k * k).reshape(k, k)


def _rdi(extra: float, missing: float, contradicted: float) -> float | None:
    return (extra - missing) / contradicted if contradicted > 0 else None


def _shift_interval(stats: np.ndarray, resamples: int, rng: np.random.Generator) -> tuple[float | None, float | None]:
    """Paired cluster bootstrap of rdi_b - rdi_a; stats holds per contract (extra, missing, contradicted)
    for judge A then judge B."""
    k = stats.shape[0]
    weights = rng.multinomial(k, np.full(k, 1.0 / k), size=resamples).astype(float)
    sums = weights @ stats
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = (sums[:, 3] - sums[:, 4]) / sums[:, 5] - (sums[:, 0] - sums[:, 1]) / sums[:, 2]
    shift = shift[np.isfinite(shift)]
    if shift.size == 0:
        return None, None
    alpha = (1 - LEVEL) / 2
    low, high = np.quantile(shift, [alpha, 1 - alpha])
    return float(low), float(high)


def agreement(rows: Iterable[AgreementRow | Mapping[str, Any]], *, resamples: int = DEFAULT_RESAMPLES,
              seed: int = 0) -> AgreementResult:
    """Agreement of judge A and judge B over true positives both labelled (see the module docstring)."""
    parsed = [r if isinstance(r, AgreementRow) else AgreementRow.model_validate(r) for r in rows]
    both = [r for r in parsed if r.verdict_a is not None and r.verdict_b is not None]
    contradicted = VerdictLabel.CONTRADICTED
    va = np.fromiter((r.verdict_a is contradicted for r in both), dtype=np.int64, count=len(both))
    vb = np.fromiter((r.verdict_b is contradicted for r in both), dtype=np.int64, count=len(both))
    da = np.fromiter((_direction(r.mismatch_a) for r in both), dtype=np.int64, count=len(both))
    db = np.fromiter((_direction(r.mismatch_b) for r in both), dtype=np.int64, count=len(both))

    binary = _confusion(va, vb, 2)
    both_contradicted = (va == 1) & (vb == 1)
    direction = _confusion(da[both_contradicted], db[both_contradicted], 3)
    n_direction = int(both_contradicted.sum())

    models = []
    model_names = np.array([r.model for r in both], dtype=object)
    contract_names = np.array([r.contract_id for r in both], dtype=object)
    for model in sorted(set(model_names.tolist())):
        mask = model_names == model
        contracts, codes = np.unique(contract_names[mask], return_inverse=True)
        ca, cb = va[mask], vb[mask]
        # Per-contract counts under each judge: extra, missing, contradicted (A), then the same (B).
        columns = [ca * (da[mask] == 1), ca * (da[mask] == 0), ca, cb * (db[mask] == 1), cb * (db[mask] == 0), cb]
        stats = np.stack([np.bincount(codes, weights=c, minlength=len(contracts)) for c in columns], axis=1)
        totals = stats.sum(axis=0)
        rdi_a, rdi_b = _rdi(*totals[:3]), _rdi(*totals[3:])
        shift = rdi_b - rdi_a if rdi_a is not None and rdi_b is not None else None
        low, high = _shift_interval(stats, resamples, _rng(seed, model)) if shift is not None else (None, None)
        models.append(ModelShift(model=model, n=int(mask.sum()), contracts=len(contracts),
                                 contradicted_a=int(totals[2]), contradicted_b=int(totals[5]), rdi_a=rdi_a,
                                 rdi_b=rdi_b, rdi_shift=shift, rdi_shift_ci_low=low, rdi_shift_ci_high=high))

    n = len(both)
    return AgreementResult(
        n=n, excluded=len(parsed) - n,
        agreement_binary=float(np.trace(binary)) / n if n else None, kappa_binary=cohen_kappa(binary),
        n_direction=n_direction,
        agreement_direction=float(np.trace(direction)) / n_direction if n_direction else None,
        kappa_direction=cohen_kappa(direction),
        confusion_binary=Confusion(labels=BINARY_LABELS, counts=tuple(tuple(int(x) for x in r) for r in binary)),
        confusion_direction=Confusion(labels=DIRECTION_LABELS,
                                      counts=tuple(tuple(int(x) for x in r) for r in direction)),
        models=tuple(models), resamples=resamples, seed=seed)
