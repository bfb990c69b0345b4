"""Two reviewers' agreement on the refs both decided on the sheets of one gold version: Cohen's kappa over their
decisions, and the disagreements to settle."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field

from lhl_platform.review.events import DecisionRecorded


class Disagreement(BaseModel):
    ref: str
    item_id: str
    kind: str
    category: str
    first: str
    second: str


class ReviewAgreement(BaseModel):
    suite: str
    item_set: str
    gold_version: int = Field(description="the gold version both sheets were exported from")
    reviewers: tuple[str, str]
    refs: int = Field(ge=0, description="refs both reviewers decided")
    agreed: int = Field(ge=0)
    observed: float | None = Field(description="share of those refs decided alike; null without any")
    kappa: float | None = Field(description="Cohen's kappa; null without refs, or when chance agreement is 1 (both "
                                            "gave one same decision throughout: kappa is undefined)")
    disagreements: list[Disagreement]


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> tuple[float | None, float | None]:
    """(observed agreement, kappa) of paired labels."""
    n = len(pairs)
    if not n:
        return None, None
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    chance = sum(first[label] * second[label] for label in first) / (n * n)
    return observed, None if chance == 1 else (observed - chance) / (1 - chance)


def agreement(found: Sequence[DecisionRecorded], suite: str, item_set: str, version: int,
              reviewers: tuple[str, str]) -> ReviewAgreement:
    latest: dict[tuple[str, str], DecisionRecorded] = {}
    for d in found:
        if (d.suite, d.item_set, d.gold_version) == (suite, item_set, version):
            latest[(d.reviewer, d.ref)] = d
    a, b = reviewers
    refs = sorted({ref for who, ref in latest if who == a} & {ref for who, ref in latest if who == b})
    pairs = [(latest[(a, r)].decision, latest[(b, r)].decision) for r in refs]
    observed, kappa = cohen_kappa(pairs)
    split = [Disagreement(ref=r, item_id=latest[(a, r)].item_id, kind=latest[(a, r)].kind,
                          category=latest[(a, r)].category, first=x, second=y)
             for r, (x, y) in zip(refs, pairs, strict=True) if x != y]
    return ReviewAgreement(suite=suite, item_set=item_set, gold_version=version, reviewers=reviewers, refs=len(refs),
                           agreed=len(refs) - len(split), observed=observed, kappa=kappa, disagreements=split)
