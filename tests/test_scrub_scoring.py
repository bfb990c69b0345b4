"""ContractScrub scoring, as docs/method.md section 15 states it: normalisation, multiset matching per category pooled
over contracts, order-free pairs, R/P/F1 per category, overall as the unweighted mean, the term-only ablation,
recall by distance, contract-cluster intervals, missing calls left out.

The items here are self-built for the tests (short made-up gold, no contract text needed to score)."""

import pytest

from lhl_platform.scrub.categories import CATEGORIES, CATEGORY_KEYS, TERM_CATEGORIES
from lhl_platform.scrub.items import Finding, GoldFinding, ScrubItem
from lhl_platform.scrub.normalize import finding_key, normalize_location, normalize_term
from lhl_platform.scrub.scoring import missing_calls, recall_intervals, score

# One gold tuple of every category, fields as a lawyer would write them.
ONE_OF_EACH = {
    "defined_terms": {"term": "Licensed Products", "location": "1.1"},
    "undefined_capitalized_terms": {"term": "Approved Specification", "location": "4.2(a)"},
    "uncapitalized_defined_terms": {"term": "Representative", "location": "9.1"},
    "unused_defined_terms": {"term": "Change Order", "location": "1.4"},
    "incorrect_section_references": {"wrong": "Section 3", "correct": "Section 8", "location": "12.2"},
    "incorrect_party_references": {"wrong": "Licensor", "correct": "Licensee", "location": "5.1"},
    "incorrectly_capitalized_terms": {"term": "Services", "location": "7.3"},
    "terms_defined_multiple_times": {"term": "Effective Date", "location": "P", "location_2": "3.1"},
    "inconsistent_language": {"location": "1(e)", "location_2": "7(a)"},
}


def gold(category, **fields):
    return GoldFinding(category=category, **fields)


def pred(category, **fields):
    return Finding(category=category, **fields)


def item(contract_id, *tuples):
    return ScrubItem(contract_id=contract_id, text="(self-built test contract)", gold=tuple(tuples))


def every_category_items():
    return [item(f"K{n}", *(gold(c, **f) for c, f in ONE_OF_EACH.items())) for n in (1, 2, 3)]


def answers_from(items, transform=lambda g: [g], runs=(1,)):
    out = {}
    for run in runs:
        for it in items:
            for cat in CATEGORY_KEYS:
                found = []
                for g in it.gold:
                    if g.category == cat:
                        found += [Finding(category=g.category, **g.fields()) for g in transform(g)]
                out[(run, it.contract_id, cat)] = found
    return out


def test_gold_scored_against_itself_is_one_in_every_category():
    items = every_category_items()
    result = score(items, answers_from(items))
    for row in result.by_category:
        assert (row.recall, row.precision, row.f1) == (1.0, 1.0, 1.0), row.category
    assert (result.overall.recall, result.overall.precision, result.overall.f1) == (1.0, 1.0, 1.0)
    assert all(row.recall == 1.0 for row in result.terms_only)
    assert result.missing_calls == 0 and result.calls == 3 * 9


def test_empty_predictions_give_recall_zero_and_no_precision():
    items = every_category_items()
    empty = {(1, it.contract_id, cat): [] for it in items for cat in CATEGORY_KEYS}
    result = score(items, empty)
    for row in result.by_category:
        assert row.recall == 0.0 and row.tp == 0 and row.fn == row.gold == 3
        assert row.precision is None  # nothing was predicted: no precision, not 0
        assert row.f1 == 0.0  # nothing found of what exists
    assert result.overall.recall == 0.0 and result.overall.precision is None
    assert result.overall.left_out["precision"] == tuple(CATEGORY_KEYS)


def test_duplicate_predictions_never_exceed_the_gold_multiplicity():
    twice = item("K1", gold("undefined_capitalized_terms", term="Net Sales", location="4.1"),
                 gold("undefined_capitalized_terms", term="Net Sales", location="4.1"))
    spam = [pred("undefined_capitalized_terms", term="Net Sales", location="4.1")] * 5
    row = score([twice], {(1, "K1", "undefined_capitalized_terms"): spam}).by_category[1]
    assert (row.gold, row.predicted, row.tp, row.fp, row.fn) == (2, 5, 2, 3, 0)
    assert row.recall == 1.0 and row.precision == pytest.approx(0.4)
    once = score([twice], {(1, "K1", "undefined_capitalized_terms"): spam[:1]}).by_category[1]
    assert (once.tp, once.fn) == (1, 1)


def test_matching_is_within_a_contract_and_pooled_over_contracts():
    a = item("A", gold("unused_defined_terms", term="Review Period", location="7.1"))
    b = item("B", gold("unused_defined_terms", term="Cure Notice", location="2"))
    # A's finding reported for B does not count for either.
    crossed = {(1, "A", "unused_defined_terms"): [pred("unused_defined_terms", term="Cure Notice", location="2")],
               (1, "B", "unused_defined_terms"): [pred("unused_defined_terms", term="Cure Notice", location="2")]}
    row = next(r for r in score([a, b], crossed).by_category if r.category == "unused_defined_terms")
    assert (row.gold, row.tp, row.fp, row.fn) == (2, 1, 1, 1)


def test_pairs_match_in_either_order():
    pair = item("K1", gold("inconsistent_language", location="7a", location_2="1e"),
                gold("terms_defined_multiple_times", term="Term", location="1.1", location_2="Schedule 2"))
    answers = {(1, "K1", "inconsistent_language"): [pred("inconsistent_language", location="1e", location_2="7a")],
               (1, "K1", "terms_defined_multiple_times"): [
                   pred("terms_defined_multiple_times", term="term", location="Schedule 2", location_2="1.1")]}
    rows = {r.category: r for r in score([pair], answers).by_category}
    assert rows["inconsistent_language"].tp == 1 and rows["terms_defined_multiple_times"].tp == 1


def test_a_dot_is_kept_so_1_1_d_does_not_match_11_d():
    assert normalize_location("1.1(d)") == "1.1d" and normalize_location("11(d)") == "11d"
    k = item("K1", gold("undefined_capitalized_terms", term="Net Sales", location="1.1(d)"))
    wrong = {(1, "K1", "undefined_capitalized_terms"): [pred("undefined_capitalized_terms", term="Net Sales",
                                                             location="11(d)")]}
    row = score([k], wrong).by_category[1]
    assert (row.tp, row.fp, row.fn) == (0, 1, 1)
    # The term-only ablation ignores the location, so there it is found.
    assert score([k], wrong).terms_only[1].tp == 1


@pytest.mark.parametrize(("written", "normalised"), [
    ("1(a)(i)", "1ai"), ("1.1(h)(vii)", "1.1hvii"), ("Section 2.1(A)", "2.1a"), ("§ 8.2", "8.2"), ("§§ 8.2", "8.2"),
    ("Sections 4", "4"), ("Article IV", "4"), ("ARTICLE 4", "4"), ("Article VII(g)", "7g"), ("Clause 4.1", "4.1"),
    ("Paragraph 3", "3"),
    ("8.", "8"), ("P", "P"), ("Preamble", "P"), ("preamble", "P"), ("R", "R"), ("Recitals", "R"),
    ("Recital B", "R"), ("Exhibit A", "Exhibit A"), ("exh. a", "Exhibit A"), ("EXHIBIT A", "Exhibit A"),
    ("Schedule 2", "Schedule 2"), ("Schedule 2, Section 1(a)", "Schedule 2 1a"), ("Signature Block", "Signature Block"),
    ("signature page", "Signature Block"), (" 4.2 ", "4.2"),
])
def test_every_location_rule_of_the_table(written, normalised):
    assert normalize_location(written) == normalised


def test_terms_are_lower_cased_and_their_whitespace_collapsed_and_nothing_else():
    assert normalize_term("  Effective\n  Date ") == "effective date"
    assert normalize_term("Licensor") == normalize_term("licensor")
    assert normalize_term('"Licensor"') != normalize_term("Licensor")  # quotation marks are not stripped


def test_section_references_compare_their_numbers_as_locations_and_parties_as_terms():
    ref = pred("incorrect_section_references", wrong="Section 3", correct="§ 8(a)", location="Section 12.2")
    assert finding_key(ref) == ("3", "8a", "12.2")
    party = pred("incorrect_party_references", wrong="LICENSOR", correct="Licensee", location="5.1")
    assert finding_key(party) == ("licensor", "licensee", "5.1")


def test_overall_f1_is_the_mean_of_the_per_category_f1s():
    items = every_category_items()
    # Per category, a different mix: keep the first k of three gold tuples and add j false findings.
    mixes = dict(zip(CATEGORY_KEYS, [(3, 0), (2, 1), (1, 4), (3, 2), (0, 1), (2, 0), (1, 1), (3, 5), (2, 2)],
                     strict=True))
    answers = {}
    for n, it in enumerate(items):  # contract n keeps its tuple when n < k; contract 0 carries the j false ones
        for cat in CATEGORY_KEYS:
            keep, extra = mixes[cat]
            found = [Finding(category=g.category, **g.fields()) for g in it.gold if g.category == cat and n < keep]
            if n == 0:
                found += [pred(cat, **{name: "decoy" for name in ONE_OF_EACH[cat]})] * extra
            answers[(1, it.contract_id, cat)] = found
    result = score(items, answers)
    f1s = [r.f1 for r in result.by_category]
    assert result.overall.f1 == pytest.approx(sum(f1s) / 9)
    harmonic = 2 * result.overall.precision * result.overall.recall / (result.overall.precision +
                                                                        result.overall.recall)
    assert result.overall.f1 != pytest.approx(harmonic)  # not the harmonic mean of the overall P and R
    pooled = 2 * sum(r.tp for r in result.by_category) / sum(2 * r.tp + r.fp + r.fn for r in result.by_category)
    assert result.overall.f1 != pytest.approx(pooled)  # nor F1 of the counts pooled over categories (micro)


# The paper's GPT-5.5 row, reasoning on. Per category: recall (Table 3), precision (Table 6), gold total over the
# 44 contracts (the paper's Table 4 totals). Derivation of the counts: TP = round(recall x total), the
# predictions = round(TP / precision), FP = predictions - TP, FN = total - TP. For example incorrect party
# references: TP = round(0.562 x 130) = 73 (73/130 = 0.562, the paper's figure), predictions = round(73 / 0.376)
# = 194, FP = 121. Built into gold and predictions and scored, the counts must give the paper's overall row.
PAPER_GPT_5_5 = {
    "defined_terms": (0.905, 0.878, 1505),
    "undefined_capitalized_terms": (0.514, 0.632, 689),
    "uncapitalized_defined_terms": (0.868, 0.327, 317),
    "unused_defined_terms": (0.936, 0.747, 202),
    "incorrect_section_references": (0.760, 0.745, 150),
    "incorrect_party_references": (0.562, 0.376, 130),
    "incorrectly_capitalized_terms": (0.744, 0.490, 129),
    "terms_defined_multiple_times": (0.753, 0.777, 97),
    "inconsistent_language": (0.713, 0.246, 87),
}


def _paper_counts():
    counts = {}
    for cat, (recall, precision, total) in PAPER_GPT_5_5.items():
        tp = round(recall * total)
        predicted = round(tp / precision)
        counts[cat] = (total, tp, predicted - tp)
    return counts


def _fields(cat, tag):
    return {name: f"{tag}" for name in ONE_OF_EACH[cat]}


def test_counts_built_to_the_papers_gpt_5_5_row_reproduce_its_overall_figures():
    counts = _paper_counts()
    assert counts["incorrect_party_references"] == (130, 73, 121)
    assert [c[0] for c in counts.values()] == [cat.paper_total for cat in CATEGORIES]
    contracts = [f"C{n:02d}" for n in range(44)]
    gold_by = {c: [] for c in contracts}
    answers = {(1, c, cat): [] for c in contracts for cat in CATEGORY_KEYS}
    for cat, (total, tp, fp) in counts.items():
        for n in range(total):  # spread over the 44 contracts, as the paper's gold is
            contract = contracts[n % 44]
            gold_by[contract].append(gold(cat, **_fields(cat, f"g{n}")))
            if n < tp:
                answers[(1, contract, cat)].append(pred(cat, **_fields(cat, f"g{n}")))
        for n in range(fp):
            answers[(1, contracts[n % 44], cat)].append(pred(cat, **_fields(cat, f"false{n}")))
    items = [item(c, *gold_by[c]) for c in contracts]
    result = score(items, answers)
    assert result.overall.recall == pytest.approx(0.750, abs=0.001)
    assert result.overall.precision == pytest.approx(0.580, abs=0.001)
    assert result.overall.f1 == pytest.approx(0.632, abs=0.001)
    for row in result.by_category:
        recall, precision, _ = PAPER_GPT_5_5[row.category]
        assert row.recall == pytest.approx(recall, abs=0.0005) and row.precision == pytest.approx(precision, abs=0.0005)


def test_term_only_ablation_drops_locations_and_covers_eight_categories():
    items = every_category_items()
    moved = {}
    for it in items:
        for cat in CATEGORY_KEYS:
            moved[(1, it.contract_id, cat)] = [
                Finding(category=g.category, **{k: ("99.9" if k.startswith("location") else v)
                                                for k, v in g.fields().items()})
                for g in it.gold if g.category == cat]
    result = score(items, moved)
    assert [r.category for r in result.terms_only] == [c.key for c in TERM_CATEGORIES]
    assert len(result.terms_only) == 8 and "inconsistent_language" not in [r.category for r in result.terms_only]
    assert all(r.recall == 1.0 for r in result.terms_only)
    assert all(r.recall == 0.0 for r in result.by_category)  # with the locations, nothing matches
    assert result.terms_only_overall.recall == 1.0 and result.terms_only_overall.categories == 8


def test_a_missing_call_is_left_out_of_every_count_and_reported():
    items = every_category_items()
    answers = answers_from(items)
    del answers[(1, "K1", "unused_defined_terms")]
    result = score(items, answers)
    row = next(r for r in result.by_category if r.category == "unused_defined_terms")
    assert row.gold == 2 and row.recall == 1.0  # K1's gold is not counted as missed
    assert result.missing_calls == 1 and missing_calls(items, answers) == [(1, "K1", "unused_defined_terms")]
    # One call missing and the system is incomplete: no overall figure (never the mean over what it answered).
    assert (result.overall.recall, result.overall.precision, result.overall.f1) == (None, None, None)
    assert result.overall.missing == ("unused_defined_terms",) and result.terms_only_overall.recall is None
    # An empty answer is an answer: it misses K1's gold, and the system is complete.
    answers[(1, "K1", "unused_defined_terms")] = []
    complete = score(items, answers)
    row = next(r for r in complete.by_category if r.category == "unused_defined_terms")
    assert row.gold == 3 and row.fn == 1
    assert complete.overall.recall == pytest.approx((8 + 2 / 3) / 9) and complete.overall.missing == ()


def test_a_whole_category_missing_leaves_no_overall_figure_and_its_other_categories():
    items = every_category_items()
    answers = {key: found for key, found in answers_from(items).items() if key[2] != "undefined_capitalized_terms"}
    result = score(items, answers)
    assert result.missing_calls == 3 and result.overall.missing == ("undefined_capitalized_terms",)
    assert (result.overall.recall, result.overall.precision, result.overall.f1) == (None, None, None)
    assert (result.terms_only_overall.recall, result.terms_only_overall.f1) == (None, None)
    rows = {r.category: r for r in result.by_category}
    assert all((rows[c].recall, rows[c].precision, rows[c].f1) == (1.0, 1.0, 1.0) for c in CATEGORY_KEYS
               if c != "undefined_capitalized_terms")  # the 8 it answered keep their figures
    assert rows["undefined_capitalized_terms"].recall is None  # nothing answered: nothing measured, never 0
    by = {i.category: i for i in recall_intervals(items, answers, resamples=50)}
    assert (by[None].low, by[None].high) == (None, None) and by["defined_terms"].low == 1.0


def test_answers_for_a_contract_outside_the_set_are_an_error():
    with pytest.raises(ValueError, match="'ZZ', which is not in the item set"):
        score(every_category_items(), {(1, "ZZ", "defined_terms"): []})


def test_runs_pool_their_counts():
    items = every_category_items()
    answers = answers_from(items, runs=(1, 2))
    for cat in CATEGORY_KEYS:
        answers[(2, "K3", cat)] = []
    result = score(items, answers, runs=(1, 2))
    assert all(r.gold == 6 and r.tp == 5 for r in result.by_category)


def test_recall_of_section_references_by_distance_bucket():
    refs = item("K1", *(gold("incorrect_section_references", wrong=f"{n}.2", correct=f"{n}.1", location="1",
                             distance=d) for n, d in enumerate([100, 3_000, 12_000, 15_000, 40_000])))
    found = [pred("incorrect_section_references", wrong=f"{n}.2", correct=f"{n}.1", location="1") for n in (0, 2)]
    buckets = {b.bucket: b for b in score([refs], {(1, "K1", "incorrect_section_references"): found}).by_distance}
    assert list(buckets) == ["0-2500", "2500-5000", "5000-10000", "10000-20000", "20000+"]
    assert (buckets["0-2500"].recall, buckets["2500-5000"].recall) == (1.0, 0.0)
    assert buckets["5000-10000"].recall is None  # no gold at that distance: not measured
    assert (buckets["10000-20000"].gold, buckets["10000-20000"].tp, buckets["10000-20000"].recall) == (2, 1, 0.5)
    assert buckets["20000+"].recall == 0.0


def test_contract_cluster_intervals_are_seeded_and_bracket_the_estimate():
    items = [item(f"K{n}", *(gold("undefined_capitalized_terms", term=f"T{k}", location="1") for k in range(4)))
             for n in range(30)]
    answers = {(1, it.contract_id, cat): [] for it in items for cat in CATEGORY_KEYS}
    for n, it in enumerate(items):  # a quarter of the contracts fully found, the others half
        keep = 4 if n % 4 == 0 else 2
        answers[(1, it.contract_id, "undefined_capitalized_terms")] = [
            pred("undefined_capitalized_terms", term=f"T{k}", location="1") for k in range(keep)]
    point = score(items, answers).by_category[1].recall
    first = recall_intervals(items, answers, resamples=500, seed=3, key="m")
    again = recall_intervals(items, answers, resamples=500, seed=3, key="m")
    assert first == again
    by = {i.category: i for i in first}
    cat = by["undefined_capitalized_terms"]
    assert cat.low < point < cat.high and cat.high - cat.low < 0.3
    assert by[None].low == cat.low and by[None].high == cat.high  # the only category with gold
    assert by["defined_terms"].low is None  # no gold: no interval
    assert recall_intervals(items, answers, resamples=500, seed=4, key="m") != first
