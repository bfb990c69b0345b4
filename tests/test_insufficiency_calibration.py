"""The three offline calibration responders, judged by the offline cue judge on the self-built set, rank as the
seed's findings say they must: the silent answerer (premature closure) identifies nothing and fabricates
through every gap; the indiscriminate hedger hedges always, so it over-flags every complete query (hedging as
a fixed disposition) and its precision collapses; the gold reader identifies exactly the missing elements with
their consequences and answers complete queries directly. And judge agreement, on the same responses.
"""

from functools import cache

import pytest

from lhl_platform.insufficiency import offline_judge, responders
from lhl_platform.insufficiency.agreement import judge_agreement, pearson
from lhl_platform.insufficiency.calibration import judge_responses, respond
from lhl_platform.insufficiency.items import Category
from lhl_platform.insufficiency.records import ItemJudgment
from lhl_platform.insufficiency.scoring import ModelFigures, ScoringError, category_recall, f2_score, leaderboard
from lhl_platform.insufficiency.selfbuilt import self_built_items

ITEMS = self_built_items()
SILENT, HEDGER, READER = responders.PREMATURE_CLOSURE, responders.INDISCRIMINATE_HEDGING, responders.GOLD_READER


@cache
def judgments() -> tuple[ItemJudgment, ...]:
    out: list[ItemJudgment] = []
    for name, answer in ((SILENT, responders.premature_closure), (HEDGER, responders.indiscriminate_hedging),
                         (READER, responders.gold_reader(ITEMS))):
        out += judge_responses(ITEMS, respond(ITEMS, answer, model=name), offline_judge.answer,
                               judge_name=offline_judge.MODEL_ID)
    return tuple(out)


@cache
def figures() -> dict[str, ModelFigures]:
    return {f.model: f for f in leaderboard(ITEMS, judgments(), runs=[1], resamples=300)}


def value(model: str, metric: str) -> float:
    got = getattr(figures()[model], metric)
    assert got is not None, f"{model} {metric} is not measured"
    return float(got)


def test_every_item_is_answered_and_judged():
    for f in figures().values():
        assert f.missing == 0 and f.variants == len(ITEMS.variants()) and f.base_items == len(ITEMS.bases())


@pytest.mark.parametrize("metric", ["f2", "recall"])
def test_identification_ranks_gold_reader_then_hedger_then_silent_answerer(metric):
    assert value(READER, metric) == 1.0
    assert value(READER, metric) > value(HEDGER, metric) > value(SILENT, metric) == 0.0


def test_precision_collapses_under_indiscriminate_hedging_and_is_unmeasured_for_silence():
    assert value(READER, "precision") == 1.0 > value(HEDGER, "precision")
    assert value(HEDGER, "precision") < 0.2
    assert figures()[SILENT].precision is None and figures()[SILENT].precision_items == 0


def test_hedging_is_a_fixed_disposition_high_hedge_rate_goes_with_high_over_flag():
    assert value(HEDGER, "hedge_rate") == 1.0 and value(HEDGER, "over_flag") == 1.0
    assert value(SILENT, "hedge_rate") == 0.0 and value(SILENT, "over_flag") == 0.0
    # Only the gold reader, which sees the answer key, hedges on deficient queries without over-flagging
    # complete ones: the combination the seed finds in no real model.
    assert value(READER, "hedge_rate") == 1.0 and value(READER, "over_flag") == 0.0


def test_f2_given_a_hedge_and_explanation_accuracy_rank_the_responders_and_are_none_for_silence():
    assert value(READER, "f2_given_hedge") > value(HEDGER, "f2_given_hedge")
    assert value(READER, "expl_acc") == 1.0 > value(HEDGER, "expl_acc")  # the hedger asks but never says why
    assert figures()[SILENT].f2_given_hedge is None and figures()[SILENT].expl_acc is None


def test_safety_separates_silent_closure_from_everything_that_flags():
    assert value(READER, "safety") == 1.0 and value(HEDGER, "safety") == 1.0
    assert value(SILENT, "safety") == 0.0


def test_intervals_bracket_the_figures():
    for f in figures().values():
        assert f.f2_ci_low is not None and f.f2_ci_high is not None and f.f2 is not None
        assert f.f2_ci_low <= f.f2 <= f.f2_ci_high
    hedger = figures()[HEDGER]
    assert hedger.f2_ci_low is not None and hedger.f2_ci_high is not None
    assert hedger.f2_ci_low < hedger.f2_ci_high  # a mixed record has a real interval


def test_per_category_recall_follows_the_same_ranking():
    rows = {(r.model, r.category): r for r in category_recall(ITEMS, judgments())}
    for category in Category:
        reader, hedger, silent = (rows[(m, category)] for m in (READER, HEDGER, SILENT))
        assert reader.gold > 0 and reader.recall == 1.0
        assert silent.recall == 0.0
        assert hedger.recall is not None and silent.recall <= hedger.recall <= reader.recall


def _rejudged(source: list[ItemJudgment], judge: str, drop_claims: bool = False) -> list[ItemJudgment]:
    return [j.model_copy(update={"judge": judge, **({"additional_claims": ()} if drop_claims else {})})
            for j in source]


def test_two_judges_that_agree_on_everything_have_no_difference():
    a = list(judgments())
    result = judge_agreement(ITEMS, a, _rejudged(a, "copy"))
    assert result.matched == 3 * len(ITEMS.variants()) and result.only_a == result.only_b == 0
    for metric in result.metrics:
        assert metric.mean_abs_diff == 0.0 and metric.pearson_r == pytest.approx(1.0)
    assert all(m.f2_shift == 0.0 for m in result.models)


def test_a_lenient_judge_shifts_precision_and_f2_and_the_spread_shows_it():
    a = list(judgments())
    lenient = _rejudged(a, "lenient", drop_claims=True)  # never records an over-flag
    result = judge_agreement(ITEMS, a, lenient)
    by_metric = {m.metric: m for m in result.metrics}
    assert by_metric["recall"].mean_abs_diff == 0.0
    assert by_metric["precision"].mean_abs_diff is not None and by_metric["precision"].mean_abs_diff > 0.2
    assert by_metric["precision"].pearson_r is None  # the lenient judge's precision is always 1: no correlation
    f2 = by_metric["f2"]
    assert f2.mean_abs_diff is not None and f2.mean_abs_diff > 0.05 and f2.pearson_r is not None and f2.pearson_r < 0.99
    shifts = {m.model: m for m in result.models}
    # without its over-flags the hedger's F2 on each item is 5R / (4 + R): its recall at precision 1
    recalls = [len(set(j.identified_elements)) / len(ITEMS.by_id()[j.item_id].gold) for j in a
               if j.model == HEDGER and ITEMS.by_id()[j.item_id].gold]
    expected = sum(0.0 if r == 0 else f2_score(1.0, r) for r in recalls) / len(recalls)
    assert shifts[HEDGER].f2_b == pytest.approx(expected)
    assert shifts[HEDGER].f2_shift == pytest.approx(expected - value(HEDGER, "f2"))
    assert shifts[READER].f2_shift == 0.0 and shifts[SILENT].f2_shift == 0.0
    low, high = result.judges
    assert (low.judge, high.judge) == (offline_judge.MODEL_ID, "lenient")
    assert low.f2_max == high.f2_max == 1.0 and high.f2_mean is not None and low.f2_mean is not None
    assert high.f2_mean > low.f2_mean


def test_agreement_needs_two_different_single_judges():
    a = list(judgments())
    with pytest.raises(ScoringError, match="two different judges"):
        judge_agreement(ITEMS, a, a)
    with pytest.raises(ScoringError, match="one judge"):
        judge_agreement(ITEMS, a + _rejudged(a[:1], "other"), _rejudged(a, "b"))


def test_pearson_is_none_where_it_is_undefined():
    assert pearson([1.0], [1.0]) is None
    assert pearson([1.0, 1.0, 1.0], [0.0, 0.5, 1.0]) is None  # one judge's values do not vary
    assert pearson([0.0, 0.5, 1.0], [1.0, 0.5, 0.0]) == pytest.approx(-1.0)
