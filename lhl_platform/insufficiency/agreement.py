"""Agreement between two judges that judged the same responses (seed Appendix D).

Responses are matched on (model, run, item) over the **variants** both judges judged; base queries carry
no F2, precision or recall. Reported:

- per metric (F2, precision, recall), over the matched responses where both judges give the metric a value
  (precision is undefined when TP + FP = 0): the Pearson correlation of the per-item values and their mean
  absolute difference (the seed: r 0.54-0.76, MAD 0.14-0.20 between GPT-5, Claude-Haiku-4.5 and GLM-5);
- per response model, the mean F2 and recall under each judge on the same responses and the shift B - A;
- per judge, the across-model minimum, mean and maximum of those means (the seed's Table 5 summary rows).

A correlation is None with fewer than two pairs or when either judge's values do not vary; a mean absolute
difference is None without pairs; a figure without matched responses is None, never 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.insufficiency.items import Item, ItemKind, ItemSet
from lhl_platform.insufficiency.records import ItemJudgment
from lhl_platform.insufficiency.scoring import ItemScore, ScoringError, score_judgments

Metric = Literal["f2", "precision", "recall"]
METRICS: tuple[Metric, ...] = ("f2", "precision", "recall")


class MetricAgreement(_Frozen):
    metric: Metric
    n: int  # matched responses where both judges give the metric a value
    pearson_r: float | None
    mean_abs_diff: float | None


class ModelSpread(_Frozen):
    model: str
    variants: int  # matched variant responses of this model
    f2_a: float | None
    f2_b: float | None
    f2_shift: float | None  # f2_b - f2_a
    recall_a: float | None
    recall_b: float | None
    recall_shift: float | None


class JudgeSummary(_Frozen):
    judge: str
    models: int
    f2_min: float | None
    f2_mean: float | None
    f2_max: float | None
    recall_min: float | None
    recall_mean: float | None
    recall_max: float | None


class JudgeAgreement(_Frozen):
    judge_a: str
    judge_b: str
    matched: int  # variant responses both judges judged
    only_a: int  # variant responses only judge A judged
    only_b: int
    metrics: tuple[MetricAgreement, ...]
    models: tuple[ModelSpread, ...]
    judges: tuple[JudgeSummary, JudgeSummary]


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(xs) != len(ys) or len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / math.sqrt(sxx * syy)


def _mean(values: Iterable[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def _variant_scores(items: ItemSet | Mapping[str, Item] | Iterable[Item],
                    judgments: Sequence[ItemJudgment]) -> tuple[str, dict[tuple[str, int, str], ItemScore]]:
    judges = {j.judge for j in judgments}
    if len(judges) != 1:
        raise ScoringError(f"each side of an agreement is one judge, got {sorted(judges) or 'none'}")
    scores = score_judgments(items, judgments)
    return judges.pop(), {(s.model, s.run, s.item_id): s for s in scores if s.kind is ItemKind.VARIANT}


def _summary(judge: str, spreads: Sequence[ModelSpread], side: Literal["a", "b"]) -> JudgeSummary:
    f2 = [v for v in (getattr(s, f"f2_{side}") for s in spreads) if v is not None]
    recall = [v for v in (getattr(s, f"recall_{side}") for s in spreads) if v is not None]
    return JudgeSummary(judge=judge, models=len(spreads), f2_min=min(f2, default=None), f2_mean=_mean(f2),
                        f2_max=max(f2, default=None), recall_min=min(recall, default=None),
                        recall_mean=_mean(recall), recall_max=max(recall, default=None))


def judge_agreement(items: ItemSet | Mapping[str, Item] | Iterable[Item], judgments_a: Sequence[ItemJudgment],
                    judgments_b: Sequence[ItemJudgment]) -> JudgeAgreement:
    judge_a, a = _variant_scores(items, judgments_a)
    judge_b, b = _variant_scores(items, judgments_b)
    if judge_a == judge_b:
        raise ScoringError(f"an agreement needs two different judges, got {judge_a!r} twice")
    keys = sorted(a.keys() & b.keys())
    metrics = []
    for metric in METRICS:
        pairs = [(getattr(a[k], metric), getattr(b[k], metric)) for k in keys]
        both = [(x, y) for x, y in pairs if x is not None and y is not None]
        xs, ys = [x for x, _ in both], [y for _, y in both]
        metrics.append(MetricAgreement(metric=metric, n=len(both), pearson_r=pearson(xs, ys),
                                       mean_abs_diff=_mean(abs(x - y) for x, y in both)))
    spreads = []
    for model in sorted({k[0] for k in keys}):
        mine = [k for k in keys if k[0] == model]
        f2_a, f2_b = _mean(a[k].f2 for k in mine), _mean(b[k].f2 for k in mine)
        r_a, r_b = _mean(a[k].recall for k in mine), _mean(b[k].recall for k in mine)
        spreads.append(ModelSpread(model=model, variants=len(mine), f2_a=f2_a, f2_b=f2_b, f2_shift=_diff(f2_a, f2_b),
                                   recall_a=r_a, recall_b=r_b, recall_shift=_diff(r_a, r_b)))
    return JudgeAgreement(judge_a=judge_a, judge_b=judge_b, matched=len(keys), only_a=len(a.keys() - b.keys()),
                          only_b=len(b.keys() - a.keys()), metrics=tuple(metrics), models=tuple(spreads),
                          judges=(_summary(judge_a, spreads, "a"), _summary(judge_b, spreads, "b")))
