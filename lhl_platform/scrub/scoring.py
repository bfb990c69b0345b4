"""ContractScrub scoring, exactly as docs/method.md section 15 (deterministic, no judge).

1. Gold and predictions are normalised alike (`normalize.py`, every rule in its table).
2. Per category, **multiset** matching pooled over contracts (and runs): for each (run, contract) and each
   distinct normalised tuple, TP = min(gold count, predicted count); FP = the predictions left, FN = the gold
   left. Pairs of locations match in either order.
3. Per category: R = TP / (TP + FN), P = TP / (TP + FP), F1 = 2TP / (2TP + FP + FN) (the harmonic mean of P
   and R where both exist, and 0 when nothing was found of what exists).
4. **Overall** = the unweighted mean over the 9 categories of R, of P and of F1 (overall F1 is the mean of the
   per-category F1s, not the harmonic mean of the overall P and R; not pooled over categories). It exists only
   for a complete system, one that answered every call asked of it: with a missing call (a whole category, a
   contract, one call) the overall figures are None and name the categories of the missing calls, since a mean
   over what was answered is not a mean over the nine; its per-category figures remain.
5. **Term-only ablation**: the location fields left out of every tuple, the rest matched the same way, over
   the 8 categories with a term (inconsistent language has none); overall = their mean.
6. **Distance**: recall of `incorrect_section_references` per bucket of the character distance from the
   reference to the section it should point to (gold with a distance only).
7. **Intervals**: a contract-cluster bootstrap of the overall and per-category recall: contracts are drawn
   with replacement (each with all its runs), seeded, percentile interval.

A figure whose denominator is 0 is None, never 0: R of a category without gold, P of a category without
predictions; an overall mean is over the categories where the figure exists, and names the ones left out.
A call that is absent (a missing call) is not a prediction: its (run, contract, category) is left out of
every count and reported as missing, and its system has no overall figure (4.); an empty list of findings is
an answer that found nothing.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from pydantic import Field

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.scrub.categories import CATEGORIES, CATEGORY_KEYS, TERM_CATEGORIES, CategoryKey
from lhl_platform.scrub.items import Finding, ScrubItem, bucket_names, distance_bucket
from lhl_platform.scrub.normalize import Key, finding_key
from lhl_platform.scrub.records import DistanceCount  # a payload field: defined with the events
from lhl_platform.stats.rates import f1_score, precision_rate, ratio, recall_rate, recall_rates

CallKey = tuple[int, str, CategoryKey]  # (run, contract_id, category)
Answers = Mapping[CallKey, Sequence[Finding]]
DEFAULT_RESAMPLES = 2000
LEVEL = 0.95


class CategoryScore(_Frozen):
    category: CategoryKey
    gold: int = Field(ge=0)
    predicted: int = Field(ge=0)
    tp: int = Field(ge=0)
    fp: int = Field(ge=0)
    fn: int = Field(ge=0)
    recall: float | None
    precision: float | None
    f1: float | None


class Overall(_Frozen):
    recall: float | None
    precision: float | None
    f1: float | None
    categories: int = Field(ge=0, description="categories averaged")
    left_out: dict[str, tuple[CategoryKey, ...]] = Field(
        default_factory=dict, description="per figure, the categories where it does not exist (not averaged)")
    missing: tuple[CategoryKey, ...] = Field(
        default=(), description="the categories of the system's missing calls: when any, it is incomplete and "
                                "every overall figure is None")


class DistanceBucket(_Frozen):
    bucket: str
    gold: int = Field(ge=0)
    tp: int = Field(ge=0)
    recall: float | None


class ScrubScore(_Frozen):
    """One model's figures over a set of calls."""

    calls: int = Field(ge=0, description="calls answered")
    missing_calls: int = Field(ge=0)
    contracts: int = Field(ge=0)
    runs: tuple[int, ...]
    by_category: tuple[CategoryScore, ...]
    overall: Overall
    terms_only: tuple[CategoryScore, ...]
    terms_only_overall: Overall
    by_distance: tuple[DistanceBucket, ...]


def category_score(category: CategoryKey, gold: int, predicted: int, tp: int) -> CategoryScore:
    fp, fn = predicted - tp, gold - tp
    return CategoryScore(category=category, gold=gold, predicted=predicted, tp=tp, fp=fp, fn=fn,
                         recall=recall_rate(tp, fn), precision=precision_rate(tp, fp), f1=f1_score(tp, fp, fn))


def overall(scores: Sequence[CategoryScore], missing: Iterable[str] = ()) -> Overall:
    """The unweighted mean over categories of R, of P and of F1, each over the categories where it exists; for
    a system with missing calls (`missing`: the categories of its missing calls), None: it is incomplete."""
    gaps = set(missing)
    if gaps:
        return Overall(recall=None, precision=None, f1=None, categories=len(scores),
                       missing=tuple(c for c in CATEGORY_KEYS if c in gaps))
    figures: dict[str, float | None] = {}
    left_out: dict[str, tuple[CategoryKey, ...]] = {}
    for name in ("recall", "precision", "f1"):
        values = [getattr(s, name) for s in scores if getattr(s, name) is not None]
        figures[name] = sum(values) / len(values) if values else None
        absent = tuple(s.category for s in scores if getattr(s, name) is None)
        if absent:
            left_out[name] = absent
    return Overall(recall=figures["recall"], precision=figures["precision"], f1=figures["f1"], categories=len(scores),
                   left_out=left_out)


def matched(gold: Iterable[Key], predicted: Iterable[Key]) -> int:
    """TP of one multiset match: over distinct tuples, the smaller of the two counts."""
    g, p = Counter(gold), Counter(predicted)
    return sum(min(n, p[key]) for key, n in g.items())


class UnitScore(_Frozen):
    """The counts of one answered call, (run, contract, category): its full-tuple match, its term-only match
    (None for the category without a term), and its section-reference gold by distance bucket. Every figure of
    the suite is a sum of these: the platform records one per call and its marts only add them up."""

    run: int
    contract_id: str
    category: CategoryKey
    gold: int = Field(ge=0)
    predicted: int = Field(ge=0)
    tp: int = Field(ge=0)
    fp: int = Field(ge=0)
    fn: int = Field(ge=0)
    terms_gold: int | None = Field(default=None, ge=0)
    terms_predicted: int | None = Field(default=None, ge=0)
    terms_tp: int | None = Field(default=None, ge=0)
    terms_fp: int | None = Field(default=None, ge=0)
    terms_fn: int | None = Field(default=None, ge=0)
    by_distance: tuple[DistanceCount, ...] = ()


_TERM_KEYS = frozenset(c.key for c in TERM_CATEGORIES)


def unit_score(run: int, contract_id: str, category: CategoryKey, gold: Sequence[Finding],
               findings: Sequence[Finding]) -> UnitScore:
    """One call's counts: its findings matched against the contract's gold of its category."""
    if any(f.category != category for f in findings):
        raise ValueError(f"a finding of run {run}, contract {contract_id!r} is not of category {category}")
    gold_keys = [finding_key(g) for g in gold]
    pred_keys = [finding_key(f) for f in findings]
    tp = matched(gold_keys, pred_keys)
    terms: dict[str, int | None] = dict.fromkeys(("terms_gold", "terms_predicted", "terms_tp", "terms_fp",
                                                  "terms_fn"))
    if category in _TERM_KEYS:
        t = matched([finding_key(g, terms_only=True) for g in gold], [finding_key(f, terms_only=True)
                                                                     for f in findings])
        terms = {"terms_gold": len(gold), "terms_predicted": len(findings), "terms_tp": t,
                 "terms_fp": len(findings) - t, "terms_fn": len(gold) - t}
    distances: tuple[DistanceCount, ...] = ()
    if category == "incorrect_section_references":
        distances = _distances(gold, gold_keys, pred_keys)
    return UnitScore(run=run, contract_id=contract_id, category=category, gold=len(gold), predicted=len(findings),
                     tp=tp, fp=len(findings) - tp, fn=len(gold) - tp, by_distance=distances, **terms)


def _distances(gold: Sequence[Finding], gold_keys: list[Key], pred_keys: list[Key]) -> tuple[DistanceCount, ...]:
    # Within one key, the predictions match that key's gold tuples in gold order.
    left = Counter(pred_keys)
    counts = {name: [0, 0] for name in bucket_names()}
    for g, key in zip(gold, gold_keys, strict=True):
        hit = left[key] > 0
        if hit:
            left[key] -= 1
        distance = getattr(g, "distance", None)
        if distance is not None:
            counts[distance_bucket(distance)][0] += 1
            counts[distance_bucket(distance)][1] += hit
    return tuple(DistanceCount(position=i, bucket=name, gold=g, tp=t)
                 for i, (name, (g, t)) in enumerate(counts.items()) if g)


def _checked(items: Sequence[ScrubItem], answers: Answers, runs: Sequence[int]) -> None:
    known = {item.contract_id for item in items}
    unknown = sorted({c for _, c, _ in answers} - known)
    if unknown:
        raise ValueError(f"answers for contract {unknown[0]!r}, which is not in the item set")
    stray = sorted({r for r, _, _ in answers} - set(runs))
    if stray:
        raise ValueError(f"answers for run {stray[0]}, which is not among the runs scored ({list(runs)})")


def unit_scores(items: Sequence[ScrubItem], answers: Answers, runs: Sequence[int] = (1,)) -> list[UnitScore]:
    """The counts of every answered call (a missing call has none)."""
    _checked(items, answers, runs)
    gold_by: dict[tuple[str, str], list[Finding]] = {}
    for item in items:
        for g in item.gold:
            gold_by.setdefault((item.contract_id, g.category), []).append(g)
    return [unit_score(run, contract, category, gold_by.get((contract, category), []), findings)
            for (run, contract, category), findings in answers.items()]


def pooled(rows: Iterable[tuple[str, int, int, int]], categories: Sequence[CategoryKey]) -> list[CategoryScore]:
    """Per category, the (category, gold, predicted, tp) counts of many calls summed and scored; a category
    without a row has nothing measured (every figure None)."""
    sums = {c: [0, 0, 0] for c in categories}
    for category, gold, predicted, tp in rows:
        if category in sums:
            for i, value in enumerate((gold, predicted, tp)):
                sums[category][i] += value
    return [category_score(c, *sums[c]) for c in categories]


def full_rows(units: Iterable[UnitScore]) -> list[tuple[str, int, int, int]]:
    return [(u.category, u.gold, u.predicted, u.tp) for u in units]


def term_rows(units: Iterable[UnitScore]) -> list[tuple[str, int, int, int]]:
    return [(u.category, u.terms_gold or 0, u.terms_predicted or 0, u.terms_tp or 0) for u in units
            if u.terms_gold is not None]


def distance_buckets(units: Iterable[UnitScore]) -> list[DistanceBucket]:
    sums = {name: [0, 0] for name in bucket_names()}
    for u in units:
        for d in u.by_distance:
            sums[d.bucket][0] += d.gold
            sums[d.bucket][1] += d.tp
    return [DistanceBucket(bucket=name, gold=g, tp=t, recall=ratio(t, g)) for name, (g, t) in sums.items()]


def score(items: Sequence[ScrubItem], answers: Answers, runs: Sequence[int] = (1,)) -> ScrubScore:
    """Every figure of docs/method.md section 15 for one model's answers, keyed by (run, contract, category)."""
    units = unit_scores(items, answers, runs)
    full = pooled(full_rows(units), [c.key for c in CATEGORIES])
    terms = pooled(term_rows(units), [c.key for c in TERM_CATEGORIES])
    missing = missing_calls(items, answers, runs)
    gaps = [category for _, _, category in missing]
    return ScrubScore(calls=len(units), missing_calls=len(missing), contracts=len(items), runs=tuple(runs),
                      by_category=tuple(full), overall=overall(full, gaps), terms_only=tuple(terms),
                      terms_only_overall=overall(terms, gaps), by_distance=tuple(distance_buckets(units)))


def missing_calls(items: Sequence[ScrubItem], answers: Answers, runs: Sequence[int] = (1,)) -> list[CallKey]:
    """The (run, contract, category) calls expected of the set and not answered."""
    _checked(items, answers, runs)
    return [(r, item.contract_id, cat.key) for r in runs for item in items for cat in CATEGORIES
            if (r, item.contract_id, cat.key) not in answers]


class RecallInterval(_Frozen):
    """A percentile interval of recall from a contract-cluster bootstrap."""

    category: CategoryKey | None  # None: the overall (macro) recall
    low: float | None
    high: float | None
    resamples: int
    seed: int


def _rng(seed: int, key: str) -> np.random.Generator:
    words = np.frombuffer(hashlib.sha256(key.encode()).digest()[:16], dtype=np.uint32)
    return np.random.default_rng(np.random.SeedSequence([seed, *words.tolist()]))


def recall_intervals(items: Sequence[ScrubItem], answers: Answers, runs: Sequence[int] = (1,), *,
                     resamples: int = DEFAULT_RESAMPLES, seed: int = 0, key: str = "") -> list[RecallInterval]:
    """Contract-cluster bootstrap intervals of the overall recall and of each category's recall (see
    `cluster_recall_intervals`; none of the overall recall with a missing call)."""
    units = unit_scores(items, answers, runs)
    return cluster_recall_intervals([(u.contract_id, u.category, u.gold, u.tp) for u in units],
                                    [item.contract_id for item in items], resamples=resamples, seed=seed, key=key,
                                    complete=not missing_calls(items, answers, runs))


def cluster_recall_intervals(cells: Iterable[tuple[str, str, int, int]], contracts: Sequence[str], *,
                             resamples: int = DEFAULT_RESAMPLES, seed: int = 0, key: str = "",
                             complete: bool = True) -> list[RecallInterval]:
    """Intervals from per-call counts (contract, category, gold, tp), over the given contracts: contracts are drawn
    with replacement (each with all its runs and calls); a resample's overall recall is the mean over the
    categories with gold in it. `key` (a model's name, say) gives each model its own random stream. Of a system
    that is not `complete` (a call missing), the overall recall has no interval: it has no overall recall."""
    ordered = sorted(set(contracts))
    categories = [c.key for c in CATEGORIES]
    tp = np.zeros((len(ordered), len(categories)))
    gold = np.zeros((len(ordered), len(categories)))
    index = {c: i for i, c in enumerate(ordered)}
    column: dict[str, int] = {c: j for j, c in enumerate(categories)}
    for contract, category, g, t in cells:
        if contract not in index:
            raise ValueError(f"counts for contract {contract!r}, which is not among the contracts resampled")
        tp[index[contract], column[category]] += t
        gold[index[contract], column[category]] += g
    if not ordered:
        return [RecallInterval(category=c, low=None, high=None, resamples=resamples, seed=seed)
                for c in (None, *categories)]
    picks = _rng(seed, f"scrub-recall|{key}").integers(0, len(ordered), size=(resamples, len(ordered)))
    tp_sums = tp[picks].sum(axis=1)  # resamples x categories
    gold_sums = gold[picks].sum(axis=1)
    recall = recall_rates(tp_sums, gold_sums - tp_sums)  # the `recall_rate` macro; nan where no gold was drawn
    measured = (~np.isnan(recall)).sum(axis=1)
    macro = np.where(measured > 0, np.nansum(recall, axis=1) / np.maximum(measured, 1), np.nan)
    out = [_percentile(None, macro if complete else np.full(resamples, np.nan), resamples, seed)]
    out += [_percentile(c, recall[:, j], resamples, seed) for j, c in enumerate(categories)]
    return out


def _percentile(category: CategoryKey | None, samples: np.ndarray, resamples: int, seed: int) -> RecallInterval:
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return RecallInterval(category=category, low=None, high=None, resamples=resamples, seed=seed)
    alpha = (1 - LEVEL) / 2
    low, high = np.quantile(finite, [alpha, 1 - alpha])
    return RecallInterval(category=category, low=float(low), high=float(high), resamples=resamples, seed=seed)
