"""Scoring a judge on the LexFlip suite: the gate (is it fit to label?) and the LexFlip view (does it read force?).

A family passes when the judge decides enough of its items (supported or contradicted, not undetermined and not
unanswered: MIN_DECIDED), labels the decided ones as expected often enough (THRESHOLDS) and names the expected
mismatch type of the decided force-changing items often enough (MISMATCH_THRESHOLD). A judge is validated under the
held-out gate (GATE): it passes every family of every held-out set of its suite; its families on the in-sample suite
are reported, and never validate.

The LexFlip view, for any scorer that gives a number (a binary judge's verdict as 0/1, an LLM judge's 0-10 rating, a
similarity metric): each item's truth is scored against its identical text, the edited text and an unrelated span;
scores are min-max normalised per scorer over the suite; per family and per kind, `discrimination` is the share of
items whose identical text scores above the edited one, and the margin is the share of the identical-to-unrelated
range the edit costs, in two forms: `margin_of_means`, as the seed computes it (Table 1: (mean identical - mean
edited) / (mean identical - mean unrelated), from the group's mean normalised scores; null when the mean identical
score is not above the mean unrelated one), and `margin`, the mean over items of (score(identical) -
score(edited)) / (score(identical) - score(unrelated)), over the items where the identical text scores above the
unrelated one. The two agree when every item has the same range; they part where ranges differ (a scorer that
gives some items a narrow range weighs their edits more in the mean of ratios). A metric can rank identical highest
and unrelated lowest and still have a margin near 0 on force-changing edits: it does not read legal force. A judge
that reads it has a margin near 1 on force-changing edits and near 0 on force-keeping ones.

In-sample and held out: a result says which of its families the judge's rules were written from (`in_sample`,
from `lhl_platform.lexflip.items.IN_SAMPLE`); each held-out set (`lhl_platform.lexflip.heldout`) is scored apart
(`HeldOutResult`), with the same thresholds, held out for every judge, and decides whether the judge is validated.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Sequence

from lhl_platform.domain.models import DECIDED, MismatchType, Verdict, VerdictLabel
from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.edits.force import Family
from lhl_platform.judging.heldout import HeldOutHeader
from lhl_platform.lexflip.items import SUITE_VERSION, Suite, SuiteItem

MISMATCH_THRESHOLD = 0.70  # share of decided force-changing items whose mismatch_type must be the expected one
# A family passes only when the judge decides at least this share of its items (and is right often enough on
# those): a judge that abstains on everything validates nothing, and below half the figures it labels would rest on
# a minority of what it was shown, chosen by the judge (docs/method.md, section 13).
MIN_DECIDED = 0.50
THRESHOLDS: dict[Family, float] = {Family.IDENTICAL: 0.95, Family.FORCE_CHANGED: 0.90, Family.FORCE_KEPT: 0.90,
                                   Family.UNRELATED: 0.95}

JudgeFn = Callable[[str, tuple[str, ...], str], Verdict]
AsyncJudgeFn = Callable[[str, tuple[str, ...], str], Awaitable[Verdict]]
ScoreFn = Callable[[tuple[str, ...], str], float]


class ItemScores(_Frozen):
    """A scorer's score of the truth against the identical, the edited and an unrelated text (min-max normalised
    over the suite by `score_suite`)."""

    identical: float
    edited: float
    unrelated: float


class ItemOutcome(_Frozen):
    item_id: str
    family: Family
    kind: str
    clause_type: str
    expected_verdict: VerdictLabel
    expected_mismatch: MismatchType
    verdict: VerdictLabel | None  # None: the judge gave no verdict (e.g. a failed call)
    mismatch_type: MismatchType | None
    reason: str = ""
    as_expected: bool
    right_mismatch: bool | None  # family (b) only
    scores: ItemScores | None = None


class LexFlipFigures(_Frozen):
    """The LexFlip view of a group of items (null where nothing was scored)."""

    discrimination: float | None = None  # share of scored items whose identical text scores above the edited one
    margin: float | None = None  # mean over items of the share of the identical-to-unrelated range the edit costs
    margin_of_means: float | None = None  # the seed's margin: the same share computed from the mean scores
    score_identical: float | None = None  # mean normalised scores of the three pairs
    score_edited: float | None = None
    score_unrelated: float | None = None


class KindResult(LexFlipFigures):
    family: Family
    kind: str
    items: int
    as_expected: float | None  # share of items labelled with the expected verdict
    decided: int = 0  # items given supported or contradicted
    accuracy_decided: float | None = None  # share of the decided items labelled with the expected verdict
    right_mismatch: float | None  # family (b): share of the decided items with the expected mismatch_type


class FamilyResult(LexFlipFigures):
    family: Family
    items: int
    unanswered: int  # no verdict: a failed call (asked again on the next run)
    undetermined: int = 0  # the judge abstained: its evidence did not decide
    decided: int = 0  # items given supported or contradicted
    decided_share: float | None = None  # decided / items
    min_decided: float = MIN_DECIDED
    as_expected: float | None  # share of all items given the expected verdict (undecided ones count against)
    accuracy_decided: float | None = None  # share of the decided items given the expected verdict: the gate's
    threshold: float
    right_mismatch: float | None  # family (b): share of the decided items given the expected mismatch type too
    mismatch_threshold: float | None
    passed: bool
    in_sample: bool = False  # the judge's rules were written from this family's items (its result says little)


class HeldOutResult(_Frozen):
    """A judge on a held-out set: written apart from every judge's rules, fixed and hashed before any judge was run
    on it; scored with the same thresholds, reported apart from the in-sample result."""

    set: str
    sha256: str
    self_built: bool
    source: str
    written_from: str
    in_sample: bool = False  # held out for every judge
    items: int
    passed: bool
    families: tuple[FamilyResult, ...]
    kinds: tuple[KindResult, ...]
    misjudged: tuple[ItemOutcome, ...]  # the cases not judged as expected, with the judge's reason

    def family(self, family: Family | str) -> FamilyResult:
        return next(f for f in self.families if f.family == Family(family))

    def shortfalls(self) -> list[str]:
        """What fails, one phrase per failing family ("force_kept 0.025 of 40 decided")."""
        return [family_shortfall(f) for f in self.families if not f.passed]


GATE = "held_out"  # what validates a judge: every held-out set of its suite, never the in-sample suite


class ValidationResult(_Frozen):
    """A judge's validation. `score_suite` gives one set's result (`passed`: that set's families); `validate_judge`
    then makes it the judge's result under the held-out gate: `passed` is every held-out set passed, and the
    in-sample suite's own result is kept as `in_sample_passed`, reported, never validating."""

    suite_version: str
    judge: str
    items: int
    passed: bool
    families: tuple[FamilyResult, ...]
    kinds: tuple[KindResult, ...]
    outcomes: tuple[ItemOutcome, ...]
    in_sample: tuple[Family, ...] = ()  # the families the judge's rules were written from
    samples: int = 1  # graded scores averaged per (item, pair)
    gate: str | None = None  # GATE once the held-out sets are scored
    in_sample_passed: bool | None = None
    held_out: tuple[HeldOutResult, ...] = ()

    def family(self, family: Family | str) -> FamilyResult:
        return next(f for f in self.families if f.family == Family(family))

    def held_out_set(self, name: str) -> HeldOutResult:
        return next(h for h in self.held_out if h.set == name)


def family_shortfall(f: FamilyResult) -> str:
    """Why a family fails, in one phrase: its accuracy on what was decided, the share decided, the mismatch type."""
    parts = [f"{f.family.value} {_fmt(f.accuracy_decided)} of {f.decided} decided (needs {f.threshold:.2f})"]
    if f.decided_share is None or f.decided_share < f.min_decided:
        parts.append(f"decided {_fmt(f.decided_share)} (needs {f.min_decided:.2f})")
    if f.mismatch_threshold is not None and (f.right_mismatch is None or f.right_mismatch < f.mismatch_threshold):
        parts.append(f"right mismatch type {_fmt(f.right_mismatch)} (needs {f.mismatch_threshold:.2f})")
    return ", ".join(parts)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def with_held_out(result: ValidationResult, held_out: Sequence[HeldOutResult]) -> ValidationResult:
    """The judge's result under the held-out gate: validated only if it passes every held-out set (and there is
    one); the in-sample result is kept apart."""
    return result.model_copy(update={"gate": GATE, "in_sample_passed": result.passed, "held_out": tuple(held_out),
                                     "passed": bool(held_out) and all(h.passed for h in held_out)})


def _items_of(suite: Suite | Sequence[SuiteItem]) -> tuple[SuiteItem, ...]:
    return suite.items if isinstance(suite, Suite) else tuple(suite)


def _share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _lexflip(outcomes: Sequence[ItemOutcome]) -> dict[str, float | None]:
    """Discrimination, margin and the mean normalised scores of the scored items among `outcomes`."""
    scored = [o.scores for o in outcomes if o.scores is not None]
    if not scored:
        return {}
    margins = [(s.identical - s.edited) / (s.identical - s.unrelated) for s in scored if s.identical > s.unrelated]
    identical = sum(s.identical for s in scored) / len(scored)
    edited = sum(s.edited for s in scored) / len(scored)
    unrelated = sum(s.unrelated for s in scored) / len(scored)
    return {"discrimination": sum(s.identical > s.edited for s in scored) / len(scored), "margin": _mean(margins),
            "margin_of_means": margin_of_means(identical, edited, unrelated),
            "score_identical": identical, "score_edited": edited, "score_unrelated": unrelated}


def margin_of_means(identical: float, edited: float, unrelated: float) -> float | None:
    """The seed's margin (Table 1): the share of the identical-to-unrelated range of the mean scores that the edit
    costs; null when the mean identical score is not above the mean unrelated one (no range to spend)."""
    return (identical - edited) / (identical - unrelated) if identical > unrelated else None


def normalise(scores: Sequence[ItemScores | None]) -> list[ItemScores | None]:
    """Min-max normalisation per scorer: every score of the suite mapped onto [0, 1] (a scorer that gives one value
    throughout keeps its raw scores, since it discriminates nothing either way)."""
    values = [v for s in scores if s is not None for v in (s.identical, s.edited, s.unrelated)]
    if not values or max(values) == min(values):
        return list(scores)
    low, span = min(values), max(values) - min(values)
    return [None if s is None else ItemScores(identical=(s.identical - low) / span, edited=(s.edited - low) / span,
                                              unrelated=(s.unrelated - low) / span) for s in scores]


def score_suite(suite: Suite | Sequence[SuiteItem], verdicts: Sequence[Verdict | None], *,
                scores: Sequence[ItemScores | None] | None = None, judge: str = "",
                families: Sequence[Family] | None = None, in_sample: Collection[Family] = ()) -> ValidationResult:
    """Score verdicts given elsewhere (e.g. by an LLM judge through the provider layer), one per item in
    suite order; None marks an item the judge did not answer, and counts as not as expected. `families` are the
    families reported (default: all; a held-out set has two); `in_sample` those the judge's rules were written
    from."""
    items = _items_of(suite)
    if len(verdicts) != len(items) or (scores is not None and len(scores) != len(items)):
        raise ValueError(f"expected one verdict (and score) per item: {len(items)} items, {len(verdicts)} verdicts")
    scores = normalise(scores) if scores is not None else None
    outcomes = []
    for n, (item, verdict) in enumerate(zip(items, verdicts, strict=True)):
        label = verdict.verdict if verdict else None
        mismatch = verdict.mismatch_type if verdict else None
        outcomes.append(ItemOutcome(
            item_id=item.item_id, family=item.family, kind=item.kind, clause_type=item.clause_type,
            expected_verdict=item.expected_verdict, expected_mismatch=item.expected_mismatch, verdict=label,
            mismatch_type=mismatch, reason=verdict.reason if verdict else "",
            as_expected=label == item.expected_verdict,
            right_mismatch=(label == item.expected_verdict and mismatch == item.expected_mismatch)
            if item.family is Family.FORCE_CHANGED else None,
            scores=scores[n] if scores is not None else None))
    results, kinds = [], []
    for family in families if families is not None else tuple(Family):
        in_family = [o for o in outcomes if o.family is family]
        decided = [o for o in in_family if o.verdict in DECIDED]
        accuracy = _share([o.as_expected for o in decided])
        decided_share = len(decided) / len(in_family) if in_family else None
        right = _share([bool(o.right_mismatch) for o in decided]) if family is Family.FORCE_CHANGED else None
        mismatch_threshold = MISMATCH_THRESHOLD if family is Family.FORCE_CHANGED else None
        results.append(FamilyResult(
            family=family, items=len(in_family), unanswered=sum(o.verdict is None for o in in_family),
            undetermined=sum(o.verdict is VerdictLabel.UNDETERMINED for o in in_family), decided=len(decided),
            decided_share=decided_share, as_expected=_share([o.as_expected for o in in_family]),
            accuracy_decided=accuracy, threshold=THRESHOLDS[family], right_mismatch=right,
            mismatch_threshold=mismatch_threshold,
            passed=accuracy is not None and accuracy >= THRESHOLDS[family]
            and decided_share is not None and decided_share >= MIN_DECIDED
            and (mismatch_threshold is None or (right is not None and right >= mismatch_threshold)),
            in_sample=family in in_sample, **_lexflip(in_family)))
        for kind in dict.fromkeys(o.kind for o in in_family):
            of_kind = [o for o in in_family if o.kind == kind]
            decided_kind = [o for o in of_kind if o.verdict in DECIDED]
            kinds.append(KindResult(
                family=family, kind=kind, items=len(of_kind), as_expected=_share([o.as_expected for o in of_kind]),
                decided=len(decided_kind), accuracy_decided=_share([o.as_expected for o in decided_kind]),
                right_mismatch=_share([bool(o.right_mismatch) for o in decided_kind])
                if family is Family.FORCE_CHANGED else None,
                **_lexflip(of_kind)))
    return ValidationResult(suite_version=suite.version if isinstance(suite, Suite) else SUITE_VERSION, judge=judge,
                            items=len(items), passed=all(f.passed for f in results),
                            families=tuple(results), kinds=tuple(kinds), outcomes=tuple(outcomes),
                            in_sample=tuple(f for f in Family if f in in_sample))


def held_out_result(header: HeldOutHeader, result: ValidationResult) -> HeldOutResult:
    """A result on a held-out set (scored by `score_suite` with its families), as reported apart."""
    return HeldOutResult(set=header.set, sha256=header.sha256, self_built=header.self_built, source=header.source,
                         written_from=header.written_from, items=result.items, passed=result.passed,
                         families=result.families, kinds=result.kinds,
                         misjudged=tuple(o for o in result.outcomes if not o.as_expected))


def item_scores(items: Sequence[SuiteItem], scorer: ScoreFn | None) -> list[ItemScores | None] | None:
    if scorer is None:
        return None
    return [ItemScores(identical=scorer(i.truth, i.truth[0]), edited=scorer(i.truth, i.edited),
                       unrelated=scorer(i.truth, i.unrelated)) for i in items]


def run_suite(suite: Suite | Sequence[SuiteItem], judge: JudgeFn, *, scorer: ScoreFn | None = None,
              name: str = "") -> ValidationResult:
    """Run a judge with the `rubric.judge` signature over the suite; `scorer(truth, text)` adds LexFlip figures."""
    items = _items_of(suite)
    verdicts = [judge(i.clause_type, i.truth, i.edited) for i in items]
    return score_suite(items, verdicts, scores=item_scores(items, scorer), judge=name)


async def run_suite_async(suite: Suite | Sequence[SuiteItem], judge: AsyncJudgeFn, *, concurrency: int = 8,
                          scorer: ScoreFn | None = None, name: str = "") -> ValidationResult:
    """As run_suite, for a coroutine judge (e.g. an LLM behind the provider layer); at most `concurrency`
    calls in flight. A call that raises leaves its item unanswered instead of failing the run."""
    items = _items_of(suite)
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(item: SuiteItem) -> Verdict | None:
        async with gate:
            try:
                return await judge(item.clause_type, item.truth, item.edited)
            except Exception:  # noqa: BLE001 - an unanswered item is scored as a failure, not a crash
                return None

    verdicts = await asyncio.gather(*(one(i) for i in items))
    return score_suite(items, list(verdicts), scores=item_scores(items, scorer), judge=name)
