"""InsufficiencyBench metrics, exactly as the seed defines them (section 3.5, Table 4; docs/method.md section 16).

Per variant: TP = |identified ∩ gold|, FP = |additional claims|, P = TP/(TP+FP), R = TP/|gold|,
F2 = 5PR/(4P+R) and 0 when TP = 0; model figures are means of per-item values, each over the items where it
is defined; over-flag comes from base queries only; None, never 0, where nothing was measured.
"""

import pytest

from lhl_platform.insufficiency.items import Category, Item, ItemKind, MissingElement
from lhl_platform.insufficiency.records import AdditionalClaim, ElementVerdict, ItemJudgment
from lhl_platform.insufficiency.scoring import (
    ScoringError,
    category_recall,
    f2_score,
    leaderboard,
    matched,
    model_figures,
    pooled_f2,
    score_item,
    score_judgments,
)
from lhl_platform.insufficiency.selfbuilt import self_built_items

ITEMS = self_built_items().by_id()


def element(tag: str, category: Category = Category.FACTS_OF_HARM) -> MissingElement:
    return MissingElement(sub_tag=tag, category=category, required=True, explanation=f"why {tag} matters")


def variant(item_id: str, *tags: str, categories: tuple[Category, ...] = ()) -> Item:
    cats = categories or (Category.FACTS_OF_HARM,) * len(tags)
    return Item(item_id=item_id, base_id="b", kind=ItemKind.VARIANT, domain="tort", jurisdiction="US-NY",
                query="q", missing_elements=tuple(element(t, c) for t, c in zip(tags, cats, strict=True)))


BASE = Item(item_id="b", base_id="b", kind=ItemKind.BASE, domain="tort", jurisdiction="US-NY", query="q")


def judged(item: Item, identified: tuple[str, ...] = (), claims: int = 0, claimed: bool | None = None, *,
           explained: tuple[str, ...] = (), fabricated: tuple[str, ...] = (), model: str = "m", run: int = 1,
           judge: str = "j") -> ItemJudgment:
    return ItemJudgment(
        model=model, run=run, judge=judge, item_id=item.item_id, identified_elements=identified,
        additional_claims=tuple(AdditionalClaim(label=f"extra_{n}", span="...") for n in range(claims)),
        claimed_anything_missing=bool(identified or claims) if claimed is None else claimed,
        elements=tuple(ElementVerdict(sub_tag=t, explanation_matches=t in explained, fabricated=t in fabricated)
                       for t in item.gold))


# The seed's worked examples ------------------------------------------------------------------------

def test_figure_1_premature_closure_scores_zero_and_unsafe():
    q01a = ITEMS["q01a"]
    s = score_item(q01a, judged(q01a, fabricated=q01a.gold))
    assert (s.tp, s.fp, s.fn) == (0, 0, 3)
    assert s.f2 == 0.0 and s.recall == 0.0
    assert s.precision is None  # nothing claimed: TP + FP = 0
    assert s.expl_acc is None  # nothing identified
    assert s.safety == 0.0 and s.hedged is False


def test_figure_1_sufficiency_aware_response_scores_perfectly():
    q01a = ITEMS["q01a"]
    s = score_item(q01a, judged(q01a, q01a.gold, explained=q01a.gold))
    assert (s.tp, s.fp, s.fn) == (3, 0, 0)
    assert (s.precision, s.recall, s.f2, s.expl_acc, s.safety) == (1.0, 1.0, 1.0, 1.0, 1.0)
    assert s.hedged is True


def test_appendix_e_over_hedging_on_a_base_query_is_an_over_flag_and_nothing_else():
    s = score_item(ITEMS["q01"], judged(ITEMS["q01"], claims=2))
    assert s.over_flag is True and s.fp == 2
    assert (s.precision, s.recall, s.f2, s.expl_acc, s.safety) == (None, None, None, None, None)
    clean = score_item(ITEMS["q01"], judged(ITEMS["q01"]))
    assert clean.over_flag is False


def test_judge_prompt_examples_b_and_c_score_by_the_formula():
    two = variant("v", "jurisdiction", "compensation_level")  # example B: one of two identified, nothing extra
    s = score_item(two, judged(two, ("compensation_level",)))
    assert (s.precision, s.recall) == (1.0, 0.5) and s.f2 == pytest.approx(5 * 1 * 0.5 / (4 * 1 + 0.5))
    one = variant("w", "jurisdiction")  # example C: identified, with two additional claims
    s = score_item(one, judged(one, ("jurisdiction",), claims=2))
    assert s.precision == pytest.approx(1 / 3) and s.recall == 1.0
    assert s.f2 == pytest.approx(5 * (1 / 3) / (4 / 3 + 1))


# Per-item rules ------------------------------------------------------------------------------------

@pytest.mark.parametrize("claims", [0, 1, 4])
def test_f2_is_zero_when_tp_is_zero_whatever_the_false_positives(claims):
    item = variant("v", "a", "b")
    s = score_item(item, judged(item, claims=claims))
    assert s.tp == 0 and s.f2 == 0.0
    assert s.precision == (None if claims == 0 else 0.0)


def test_identified_names_outside_the_gold_are_dropped_and_counted_not_scored():
    item = variant("v", "a", "b")
    s = score_item(item, judged(item, ("a", "salary", "zip_code")))
    assert s.tp == 1 and s.fp == 0 and s.dropped == 2 and s.found == ("a",)
    assert s.precision == 1.0 and s.recall == 0.5


def test_explanation_accuracy_counts_identified_elements_only_and_safety_counts_every_gold_element():
    item = variant("v", "a", "b", "c", "d")
    s = score_item(item, judged(item, ("a", "b"), explained=("a", "c"), fabricated=("c", "d")))
    assert s.expl_acc == 0.5  # 'a' explained of the identified {a, b}; 'c' is not identified, so not counted
    assert s.safety == 0.5  # fabricated through 2 of the 4 gold elements, identified or not


def test_a_judgment_must_judge_each_gold_element_once():
    item = variant("v", "a", "b")
    partial = judged(item).model_copy(update={"elements": (ElementVerdict(sub_tag="a", explanation_matches=False,
                                                                          fabricated=False),)})
    with pytest.raises(ScoringError, match="must be the gold elements"):
        score_item(item, partial)


# Model figures -------------------------------------------------------------------------------------

def test_model_figures_are_means_of_per_item_values_each_over_its_defined_items():
    v1, v2, v3 = variant("v1", "a"), variant("v2", "a", "b"), variant("v3", "a")
    judgments = [judged(v1, ("a",), explained=("a",)),  # P 1, R 1, F2 1, ExplAcc 1
                 judged(v2, ("a",), claims=1),  # P .5, R .5, F2 .5, ExplAcc 0
                 judged(v3, claimed=False, fabricated=("a",)),  # TP+FP = 0: no precision, no ExplAcc
                 judged(BASE, claims=1)]
    f = leaderboard([v1, v2, v3, BASE], judgments, resamples=200)[0]
    assert f.variants == 3 and f.base_items == 1
    assert f.f2 == pytest.approx((1 + 0.5 + 0) / 3)
    assert f.recall == pytest.approx((1 + 0.5 + 0) / 3)
    assert f.precision == pytest.approx((1 + 0.5) / 2) and f.precision_items == 2  # v3 skipped
    assert f.expl_acc == pytest.approx((1 + 0) / 2) and f.expl_items == 2  # v3 skipped
    assert f.safety == pytest.approx((1 + 1 + 0) / 3)
    assert f.hedge_rate == pytest.approx(2 / 3) and f.f2_given_hedge == pytest.approx(0.75)
    assert f.over_flag == 1.0


def test_per_item_mean_f2_differs_from_the_f2_of_pooled_precision_and_recall():
    # A hedger that names every gold element among many claims, and a silent answer that claims nothing:
    hedged, silent = variant("h", "a"), variant("s", "a")
    f = leaderboard([hedged, silent], [judged(hedged, ("a",), claims=3), judged(silent, claimed=False)],
                    resamples=100)[0]
    assert f.precision == 0.25 and f.recall == 0.5  # precision skips the silent item
    per_item = (f2_score(0.25, 1.0) + 0.0) / 2
    assert f.f2 == pytest.approx(per_item)
    assert pooled_f2(f.precision, f.recall) == pytest.approx(f2_score(0.25, 0.5))
    assert pooled_f2(f.precision, f.recall) != pytest.approx(f.f2)


def test_the_seed_reference_row_shows_the_same_gap():
    # GPT-5.2 in the seed: P 0.350 and R 0.666 give a pooled F2 of 0.564, against the reported per-item 0.455.
    assert pooled_f2(0.350, 0.666) == pytest.approx(0.564, abs=5e-4)


def test_nothing_measured_is_none_never_zero():
    silent = variant("s", "a")
    f = leaderboard([silent], [judged(silent, claimed=False)], resamples=100)[0]
    assert f.precision is None and f.expl_acc is None and f.f2_given_hedge is None
    assert f.over_flag is None and f.base_items == 0  # no base queries judged
    assert f.precision_ci_low is None and f.over_flag_ci_high is None
    assert f.f2 == 0.0 and f.recall == 0.0 and f.hedge_rate == 0.0  # these were measured, and are zero


def test_a_model_missing_cells_is_incomplete_with_null_figures_and_unranked():
    v1, v2 = variant("v1", "a"), variant("v2", "a")
    full = [judged(v1, ("a",), model="full", run=r) for r in (1, 2)] + [
        judged(v2, model="full", run=r, claimed=False) for r in (1, 2)]
    rows = {f.model: f for f in leaderboard([v1, v2], [judged(v1, ("a",)), *full], runs=[1, 2], resamples=100)}
    f = rows["m"]
    assert f.missing == 3 and f.variant_responses == 1 and (f.cells, f.judged) == (4, 1)
    # a missing answer is not a zero, and the one answer it has is not its figure either
    assert not f.complete and f.rank is None
    assert f.f2 is None and f.recall is None and f.hedge_rate is None and f.f2_ci_low is None
    assert f.coverage == ("1 of 4 responses judged (2 items x runs 1, 2); incomplete, 3 missing: figures null, "
                          "not ranked")
    assert rows["full"].complete and rows["full"].rank == 1 and rows["full"].f2 == 0.5
    assert [r.model for r in leaderboard([v1, v2], [judged(v1, ("a",)), *full], runs=[1, 2])] == ["full", "m"]
    recall = {(r.model, r.category): r.recall for r in category_recall([v1, v2], [judged(v1, ("a",)), *full],
                                                                       runs=[1, 2])}
    assert recall[("m", Category.FACTS_OF_HARM)] is None and recall[("full", Category.FACTS_OF_HARM)] == 0.5


def test_runs_are_pooled_as_item_x_run_responses():
    v1 = variant("v1", "a")
    f = leaderboard([v1], [judged(v1, ("a",), run=1), judged(v1, run=2, claimed=False)], resamples=100)[0]
    assert f.runs == (1, 2) and f.variants == 1 and f.variant_responses == 2
    assert f.f2 == 0.5


def test_item_bootstrap_intervals_are_seeded_and_bracket_the_figure():
    variants = self_built_items().variants()
    judgments = [judged(v, v.gold[:1], claims=n % 3) for n, v in enumerate(variants)]
    a = leaderboard(variants, judgments, resamples=500, seed=7)[0]
    b = leaderboard(variants, judgments, resamples=500, seed=7)[0]
    c = leaderboard(variants, judgments, resamples=500, seed=8)[0]
    assert (a.f2_ci_low, a.f2_ci_high) == (b.f2_ci_low, b.f2_ci_high)
    assert (a.f2_ci_low, a.f2_ci_high) != (c.f2_ci_low, c.f2_ci_high)
    assert a.f2_ci_low is not None and a.f2_ci_high is not None and a.f2 is not None
    assert a.f2_ci_low < a.f2 < a.f2_ci_high
    assert a.recall_ci_low is not None and a.recall_ci_low <= a.recall <= a.recall_ci_high  # type: ignore[operator]


def test_the_leaderboard_row_has_exactly_the_contract_fields():
    q01a = ITEMS["q01a"]
    row = leaderboard(ITEMS, [judged(q01a, q01a.gold), judged(ITEMS["q01"])], resamples=50)[0].leaderboard_row()
    assert list(row.model_dump()) == ["model", "judge", "variants", "base_items", "f2", "f2_ci_low", "f2_ci_high",
                                      "precision", "recall", "hedge_rate", "f2_given_hedge", "expl_acc", "safety",
                                      "over_flag", "complete", "cells", "judged", "rank", "coverage"]


def test_per_category_recall_is_pooled_over_gold_elements():
    a = variant("va", "x", "y", categories=(Category.JURISDICTION, Category.TIMING))
    b = variant("vb", "x", "z", categories=(Category.JURISDICTION, Category.TIMING))
    rows = {r.category: r for r in category_recall([a, b], [judged(a, ("x", "y")), judged(b, ("z",))])}
    assert (rows[Category.JURISDICTION].gold, rows[Category.JURISDICTION].hits) == (2, 1)
    assert rows[Category.JURISDICTION].recall == 0.5
    assert rows[Category.TIMING].recall == 1.0
    assert rows[Category.CONSIDERATION].gold == 0 and rows[Category.CONSIDERATION].recall is None
    assert len(rows) == 8


def test_one_scope_has_one_judge_and_each_response_is_judged_once():
    item = variant("v", "a")
    with pytest.raises(ScoringError, match="one judge"):
        leaderboard([item], [judged(item, judge="j1"), judged(item, judge="j2", model="other")])
    with pytest.raises(ScoringError, match="twice"):
        score_judgments([item], [judged(item), judged(item)])
    with pytest.raises(ScoringError, match="unknown item"):
        score_judgments([item], [judged(variant("elsewhere", "a"))])
    with pytest.raises(ScoringError, match="one model"):
        model_figures(score_judgments([item], [judged(item), judged(item, model="n")]))


def test_matched_keeps_only_responses_every_model_has():
    v1, v2 = variant("v1", "a"), variant("v2", "a")
    kept = matched([judged(v1, model="m"), judged(v2, model="m"), judged(v1, model="n")])
    assert sorted((j.model, j.item_id) for j in kept) == [("m", "v1"), ("n", "v1")]
