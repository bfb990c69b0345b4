"""`lhl import findings`: predictions made elsewhere, validated whole first (a bad line is one error naming its
line number and field), a line absent is a missing call, and the same scoring code reads them."""

import json

import pytest

from lhl_platform.scrub.categories import CATEGORY_KEYS
from lhl_platform.scrub.imports import FindingsImportError, answers_of, findings_line, gold_findings, parse_findings
from lhl_platform.scrub.items import Edit, Finding, GoldFinding, ScrubItem
from lhl_platform.scrub.scoring import score

ITEMS = [ScrubItem(contract_id=c, text="(self-built test contract)", gold=(
    GoldFinding(category="unused_defined_terms", term="Review Period", location="7.1"),)) for c in ("K1", "K2")]


def line(**overrides):
    row = {"model": "vendor-x", "run": 1, "contract_id": "K1", "category": "unused_defined_terms",
           "findings": [{"term": "Review Period", "location": "Section 7.1"}]}
    return json.dumps({**row, **overrides})


def test_a_findings_file_is_read_and_scored_by_the_same_code():
    data = "\n".join([line(), line(contract_id="K2", findings=[]), line(model="vendor-y")]) + "\n"
    calls = parse_findings(data, "preds.jsonl", ITEMS)
    assert [(c.model, c.contract_id, c.line) for c in calls] == [("vendor-x", "K1", 1), ("vendor-x", "K2", 2),
                                                                 ("vendor-y", "K1", 3)]
    answers = answers_of(calls, "vendor-x")
    result = score(ITEMS, answers)
    row = next(r for r in result.by_category if r.category == "unused_defined_terms")
    assert (row.gold, row.tp, row.fn) == (2, 1, 1)  # K2's empty answer is an answer that found nothing
    assert result.missing_calls == 2 * 9 - 2  # every other category of both contracts was never answered
    assert score(ITEMS, answers_of(calls, "vendor-y")).by_category[3].gold == 1  # K2 missing, not missed


@pytest.mark.parametrize(("bad", "message"), [
    ("{oops", "line 2: not valid JSON"),
    ('"just a string"', "line 2: expected a JSON object, got str"),
    (line(category="typos"), "line 2: field category: 'typos' is not one of defined_terms, "),
    (line(findings={"term": "x"}), "line 2: field findings: expected a list of findings, got dict"),
    (line(findings=None), "line 2: field findings: expected a list of findings, got nothing"),
    (line(findings=[{"term": "Review Period"}]), "line 2: field findings[0]: Value error, unused_defined_terms needs "
                                                 "field 'location'"),
    (line(findings=[{"term": "X", "location": "1", "page": 3}]), "line 2: field findings[0].page: Extra inputs"),
    (line(findings=[{"term": "X", "location": "1", "distance": 3}]), "line 2: field findings[0].distance: gold "
                                                                      "provenance of the release format"),
    (line(findings=[{"term": "X", "location": "1", "edit": {"start": 0, "end": 1, "original": "x"}}]),
     "line 2: field findings[0].edit: gold provenance of the release format, not a finding's field; `lhl scrub "
     "export FILE --as-findings NAME` writes"),
    (line(findings=[{"term": "X", "location": "1", "wrong": "Y"}]), "line 2: field findings[0]: Value error, "
                                                                     "unused_defined_terms has no field 'wrong'"),
    (line(findings=[{"category": "defined_terms", "term": "X", "location": "1"}]),
     "line 2: field findings[0].category: 'defined_terms' on a line of category unused_defined_terms"),
    (line(run=0), "line 2: field run: Input should be greater than or equal to 1"),
    (line(model="has space"), "line 2: field model: String should match pattern"),
    (line(contract_id="K9"), "line 2: field contract_id: 'K9' is not in the item set"),
    (line(), "line 2: the same model, run, contract and category as line 1"),
])
def test_a_bad_line_is_one_error_naming_its_line_and_nothing_is_imported(bad, message):
    with pytest.raises(FindingsImportError) as raised:
        parse_findings(line() + "\n" + bad + "\n", "preds.jsonl", ITEMS)
    assert str(raised.value).startswith("preds.jsonl: line 2: ") and message in str(raised.value), str(raised.value)


def test_null_fields_a_category_does_not_use_are_accepted():
    (call,) = parse_findings(line(findings=[{"term": "X", "location": "1", "wrong": None, "location_2": None}]))
    assert call.findings == (Finding(category="unused_defined_terms", term="X", location="1"),)


def test_an_empty_file_is_an_error():
    with pytest.raises(FindingsImportError, match="no records"):
        parse_findings("", "empty.jsonl")


def test_findings_lines_round_trip():
    findings = [Finding(category="inconsistent_language", location="1e", location_2="7a")]
    text = findings_line("vendor-x", 2, "K1", "inconsistent_language", findings)
    (call,) = parse_findings(text)
    assert (call.run, call.category, call.findings) == (2, "inconsistent_language", tuple(findings))


def test_the_gold_written_as_findings_is_every_call_and_scores_one_where_a_figure_exists():
    items = [ScrubItem(contract_id="K1", text="(self-built test contract)", gold=(
        GoldFinding(category="incorrect_section_references", wrong="3", correct="8", location="12.2", distance=40_000,
                    edit=Edit(start=0, end=4, original="(sel")),
        GoldFinding(category="unused_defined_terms", term="Review Period", location="7.1"))), ITEMS[1]]
    calls = parse_findings(gold_findings(items, "gold-check", run=2), "gold.jsonl", items)
    assert [(c.contract_id, c.category) for c in calls] == [(i.contract_id, k) for i in items for k in CATEGORY_KEYS]
    assert {c.run for c in calls} == {2} and sum(not c.findings for c in calls) == 2 * 9 - 3  # [] where no gold
    result = score(items, answers_of(calls, "gold-check"), runs=(2,))
    assert result.missing_calls == 0 and (result.overall.recall, result.overall.precision, result.overall.f1) == (
        1.0, 1.0, 1.0)
    assert [b.recall for b in result.by_distance if b.gold] == [1.0]
