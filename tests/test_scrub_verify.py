"""The verifier keeps an injected defect only if it holds: for each kind, a planted good injection passes and a
planted bad one is rejected with its reason. The contract is self-built for the tests (tests/scrub_fixtures.py)."""

import pytest

from lhl_platform.scrub.document import parse_contract
from lhl_platform.scrub.items import GoldFinding, ScrubItem, Source
from lhl_platform.scrub.verify import report, verify_item
from tests.scrub_fixtures import CONTRACT, planted


def reasons(item):
    return [r.reason for r in verify_item(item, CONTRACT)]


def section_start(label):
    return next(s.start for s in parse_contract(CONTRACT).sections if s.label == label)


REVIEW_PERIOD = (' For purposes of this Section 2.2, "Review Period" means the period of ten (10) business days '
                 'following receipt of a written request.')

# Per category: (context, old text, new text, gold fields); an empty old text inserts at the end of the context.
GOOD = {
    "unused_defined_terms": ("prior written consent of Licensor.", "", REVIEW_PERIOD,
                             {"term": "Review Period", "location": "2.2"}),
    "undefined_capitalized_terms": ("royalty report with", "royalty report", "Royalty Report",
                                    {"term": "Royalty Report", "location": "3.2"}),
    "uncapitalized_defined_terms": ("keep the Licensed Products", "Licensed Products", "licensed products",
                                    {"term": "Licensed Products", "location": "4.1"}),
    "incorrectly_capitalized_terms": ("any other agreement", "agreement", "Agreement",
                                      {"term": "Agreement", "location": "6.1"}),
    "incorrect_section_references": ("under Section 5.2", "5.2", "5.1",
                                     {"wrong": "5.1", "correct": "5.2", "location": "5.3"}),
    "incorrect_party_references": ("Licensee shall keep", "Licensee", "Licensor",
                                   {"wrong": "Licensor", "correct": "Licensee", "location": "4.1"}),
    "terms_defined_multiple_times": ("courts of Ohio.", "", ' As used in this Agreement, "Effective Date" means '
                                                            'April 15, 2024.',
                                     {"term": "Effective Date", "location": "1.3", "location_2": "7.1"}),
    # 6.2 restates the royalty of 3.1; the third "thirty (30)" of the contract is 6.2's.
    "inconsistent_language": ("thirty (30)", "thirty (30)", "forty-five (45)",
                              {"location": "6.2", "location_2": "3.1"}),
}
OCCURRENCE = {"inconsistent_language": 2}


def good(category):
    at, old, new, fields = GOOD[category]
    distance = None
    if category == "incorrect_section_references":  # from the reference to the start of section 5.2
        distance = abs(section_start("5.2") - CONTRACT.index("under Section 5.2") - len("under Section "))
    return planted(category, at, old, new, fields, occurrence=OCCURRENCE.get(category, 0), distance=distance)


@pytest.mark.parametrize("category", list(GOOD))
def test_a_good_injection_of_each_kind_holds(category):
    item = good(category)
    assert verify_item(item, CONTRACT) == []


def test_the_inconsistent_language_fixture_edits_the_restated_royalty_figure():
    item = good("inconsistent_language")
    edit = next(g.edit for g in item.gold if g.edit is not None)
    assert item.text[edit.start - 40:edit.end].endswith("Net Sales within forty-five (45)")
    assert parse_contract(item.text).location(edit.start) == "6.2"
    assert "Net Sales within thirty (30)" in item.text  # 3.1 still says thirty


INSERT = "prior written consent of Licensor."
BAD = [
    ("unused_defined_terms", "unused_term_occurs_elsewhere",
     (INSERT, "", ' For purposes of this Section 2.2, "Dry Warehouse" means a warehouse kept below fifty percent '
                  '(50%) humidity.', {"term": "Dry Warehouse", "location": "2.2"})),
    ("unused_defined_terms", "unused_term_not_defined",
     (INSERT, "", " For purposes of this Section 2.2, a review period is a period of ten (10) business days.",
      {"term": "Review Period", "location": "2.2"})),
    ("undefined_capitalized_terms", "undefined_term_is_defined",
     ("relating to net sales", "net sales", "Net Sales", {"term": "Net Sales", "location": "3.3"})),
    ("undefined_capitalized_terms", "undefined_term_used_elsewhere",
     ("follows the marketing plan", "marketing plan", "Marketing Plan", {"term": "Marketing Plan", "location": "4.3"})),
    ("undefined_capitalized_terms", "not_a_capitalisation",
     ("royalty report with", "royalty report", "Royalty Report", {"term": "Royalty Reports", "location": "3.2"})),
    ("uncapitalized_defined_terms", "last_capitalised_usage",
     ("The Quarterly Report shall", "Quarterly Report", "quarterly report",
      {"term": "Quarterly Report", "location": "3.2"})),
    ("uncapitalized_defined_terms", "term_not_defined",
     ("follow the Marketing Plan", "Marketing Plan", "marketing plan", {"term": "Marketing Plan", "location": "4.2"})),
    ("incorrectly_capitalized_terms", "no_contrast_context",
     ("each party submits", "party", "Party", {"term": "Party", "location": "7.1"})),
    ("incorrectly_capitalized_terms", "term_not_defined",
     ("inspect the warehouse", "warehouse", "Warehouse", {"term": "Warehouse", "location": "4.3"})),
    ("incorrect_section_references", "reference_target_missing",
     ("under Section 5.2", "5.2", "5.9", {"wrong": "5.9", "correct": "5.2", "location": "5.3"})),
    ("incorrect_section_references", "reference_points_to_related_section",
     ("due under Section 3.1", "3.1", "3", {"wrong": "3", "correct": "3.1", "location": "5.3"})),
    ("incorrect_section_references", "reference_doubled",
     ("Sections 2.1 and 2.2", "2.1", "2.2", {"wrong": "2.2", "correct": "2.1", "location": "6.3"})),
    ("incorrect_party_references", "not_a_party",
     ("Licensee shall keep", "Licensee", "Northwind",
      {"wrong": "Northwind", "correct": "Licensee", "location": "4.1"})),
    ("incorrect_party_references", "party_doubled",
     ("Licensor and Licensee.", "Licensee", "Licensor",
      {"wrong": "Licensor", "correct": "Licensee", "location": "1.1"})),
    ("terms_defined_multiple_times", "definitions_do_not_conflict",
     ("courts of Ohio.", "", ' As used in this Agreement, "Effective Date" means April 1, 2024.',
      {"term": "Effective Date", "location": "1.3", "location_2": "7.1"})),
    ("terms_defined_multiple_times", "definition_scoped",
     ("courts of Ohio.", "", ' For purposes of this Section 7.1, "Effective Date" means April 15, 2024.',
      {"term": "Effective Date", "location": "1.3", "location_2": "7.1"})),
    ("inconsistent_language", "no_contradicting_passage",
     ("within thirty (30) days after written notice", "thirty (30)", "forty-five (45)",
      {"location": "5.2", "location_2": "7.1"})),
    ("undefined_capitalized_terms", "location_mismatch",
     ("royalty report with", "royalty report", "Royalty Report", {"term": "Royalty Report", "location": "3.1"})),
    # A lawyer's draft: the injected text must read like the contract.
    ("unused_defined_terms", "style_foreign_character",
     (INSERT, "", ' For purposes of this Section 2.2, "Review Period" means ten (10) business days — no more.',
      {"term": "Review Period", "location": "2.2"})),
    ("unused_defined_terms", "style_creates_defect",
     (INSERT, "", ' For purposes of this Section 2.2, "Review Period" means ten (10) days in the territory.',
      {"term": "Review Period", "location": "2.2"})),
    ("unused_defined_terms", "style_sentence",
     ("prior written consent of Licensor", "", ' for purposes of this Section 2.2, "Review Period" means ten (10) '
                                               'business days', {"term": "Review Period", "location": "2.2"})),
    ("uncapitalized_defined_terms", "style_sentence_start",
     ("4.1 Licensee shall keep", "Licensee", "licensee", {"term": "Licensee", "location": "4.1"})),
    ("undefined_capitalized_terms", "style_spacing",
     ("royalty report with", "royalty report", "Royalty  Report", {"term": "Royalty Report", "location": "3.2"})),
    ("undefined_capitalized_terms", "style_casing",
     ("royalty report with", "royalty report", "Royalty report", {"term": "Royalty report", "location": "3.2"})),
]


@pytest.mark.parametrize(("category", "reason", "spec"), BAD, ids=[f"{c}-{r}" for c, r, _ in BAD])
def test_a_planted_bad_injection_is_rejected_with_its_reason(category, reason, spec):
    item = planted(category, *spec)
    found = verify_item(item, CONTRACT)
    assert [r.reason for r in found] == [reason], found
    assert found[0].category == category and found[0].gold_index == len(item.gold) - 1


def test_the_recorded_distance_must_be_the_distance_to_the_correct_section():
    item = good("incorrect_section_references")
    gold = list(item.gold)
    gold[-1] = gold[-1].model_copy(update={"distance": gold[-1].distance + 7})
    assert reasons(item.model_copy(update={"gold": tuple(gold)})) == ["distance_mismatch"]


def test_text_outside_the_edits_must_be_byte_identical_to_the_source():
    item = good("undefined_capitalized_terms")
    tampered = item.model_copy(update={"text": item.text.replace("State of Ohio", "State of Iowa")})
    found = verify_item(tampered, CONTRACT)
    assert [(r.reason, r.gold_index) for r in found] == [("not_undoable", None)]


def test_the_source_hash_must_be_the_recorded_one():
    item = good("undefined_capitalized_terms")
    other = item.model_copy(update={"source": Source(corpus="self-built", contract_id="northwind", sha256="0" * 64)})
    assert reasons(other) == ["source_hash_mismatch"]


def test_the_defined_terms_gold_must_be_what_the_parser_reads():
    item = good("undefined_capitalized_terms")
    fewer = tuple(g for g in item.gold if g.term != "Territory")
    assert reasons(item.model_copy(update={"gold": fewer})) == ["defined_terms_not_derived"]
    extra = (*item.gold, GoldFinding(category="defined_terms", term="Royalty Report", location="3.2"))
    assert reasons(item.model_copy(update={"gold": extra})) == ["defined_terms_not_derived"]


def test_an_edit_must_not_add_a_section():
    item = planted("unused_defined_terms", INSERT, "", REVIEW_PERIOD + "\n2.4 Licensee shall keep accounts.",
                   {"term": "Review Period", "location": "2.2"})
    assert "structure_changed" in reasons(item)


def test_the_report_counts_what_was_kept_and_rejected():
    items = [good(c) for c in GOOD]
    bad = planted("incorrect_section_references", "under Section 5.2", "5.2", "5.9",
                  {"wrong": "5.9", "correct": "5.2", "location": "5.3"})
    summary = report(items, verify_item(bad, CONTRACT))
    assert summary.kept == dict.fromkeys(GOOD, 1) and summary.items == 8
    (rejected,) = summary.rejected
    assert (rejected.category, rejected.reason, rejected.count) == ("incorrect_section_references",
                                                                    "reference_target_missing", 1)
    assert summary.longest_section_reference == good("incorrect_section_references").gold[-1].distance


def test_items_must_keep_their_edits_inside_the_text_and_apart():
    item = good("undefined_capitalized_terms")
    edit = item.gold[-1].edit
    with pytest.raises(ValueError, match="past the end of the text"):
        ScrubItem(contract_id="x", text=item.text[:edit.start], gold=item.gold)
    twin = item.gold[-1].model_copy(update={"edit": edit.model_copy(update={"start": edit.start + 2})})
    with pytest.raises(ValueError, match="edits overlap"):
        ScrubItem(contract_id="x", text=item.text, gold=(*item.gold, twin))
