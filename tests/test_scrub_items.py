"""The release JSONL of docs/formats.md section 1: what `lhl scrub export` writes and `lhl ingest contractscrub` reads.
A bad line is one error naming the line and the field; every edit can be undone to the source byte for byte."""

import json

import pytest

from lhl_platform.scrub.items import GoldFinding, ItemsFormatError, ScrubItem, export_items, parse_items, undo_edits
from tests.scrub_fixtures import CONTRACT, planted

RELEASE_LINE = {"contract_id": "k1", "text": "1. Licensee shall pay.", "gold": [
    {"category": "defined_terms", "term": "Licensee", "location": "P", "wrong": None, "correct": None,
     "location_2": None},
    {"category": "inconsistent_language", "location": "1e", "location_2": "7a"},
    {"category": "incorrect_party_references", "wrong": "Licensee", "correct": "Licensor", "location": "1"}]}


def jsonl(*rows):
    return "\n".join(json.dumps(r) for r in rows) + "\n"


def test_the_release_format_loads_with_unused_fields_absent_or_null():
    (item,) = parse_items(jsonl(RELEASE_LINE))
    assert item.source is None and [g.category for g in item.gold] == [
        "defined_terms", "inconsistent_language", "incorrect_party_references"]
    assert item.gold[0].wrong is None and item.gold[1].term is None


def test_an_injected_item_round_trips_byte_for_byte_and_undoes_to_its_source():
    item = planted("incorrect_party_references", "Licensee shall keep", "Licensee", "Licensor",
                   {"wrong": "Licensor", "correct": "Licensee", "location": "4.1"})
    data = export_items([item])
    line = json.loads(data)
    assert list(line) == ["contract_id", "text", "gold", "source"]
    assert line["source"] == {"corpus": "self-built", "contract_id": "northwind", "sha256": item.source.sha256}
    assert line["gold"][-1]["edit"] == {"start": item.gold[-1].edit.start, "end": item.gold[-1].edit.end,
                                        "original": "Licensee"}
    assert "term" not in line["gold"][-1]  # a field the category does not use is absent
    (back,) = parse_items(data)
    assert back == item and export_items([back]) == data
    assert undo_edits(back) == CONTRACT


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", "line 2: not valid JSON"),
    ("[1, 2]", "line 2: expected a JSON object"),
    (json.dumps({**RELEASE_LINE, "contract_id": "k2", "gold": [{"category": "defined_terms", "location": "P"}]}),
     "line 2: field gold[0]: Value error, defined_terms needs field 'term'"),
    (json.dumps({**RELEASE_LINE, "contract_id": "k2", "gold": [{"category": "unused_defined_terms", "term": "X",
                                                                "location": "1", "wrong": "Y"}]}),
     "line 2: field gold[0]: Value error, unused_defined_terms has no field 'wrong'"),
    (json.dumps({**RELEASE_LINE, "contract_id": "k2", "gold": [{"category": "typos", "term": "X"}]}),
     "line 2: field gold[0].category: Input should be"),
    (json.dumps({**RELEASE_LINE, "contract_id": "k2", "gold": [{"category": "defined_terms", "term": " ",
                                                                "location": "P"}]}),
     "line 2: field gold[0]: Value error, field 'term' is empty"),
    (json.dumps({**RELEASE_LINE, "contract_id": "k2", "extra": 1}), "line 2: field extra: Extra inputs"),
    (json.dumps({**RELEASE_LINE, "contract_id": "k2", "gold": [
        {"category": "unused_defined_terms", "term": "X", "location": "1",
         "edit": {"start": 5, "end": 90, "original": ""}}]}), "line 2: Value error, an edit ends at 90"),
    (json.dumps(RELEASE_LINE), "line 2: field contract_id: 'k1' is already on line 1"),
])
def test_a_bad_line_is_one_error_naming_the_line_and_the_field(line, message):
    with pytest.raises(ItemsFormatError) as raised:
        parse_items(jsonl(RELEASE_LINE) + line + "\n", "set.jsonl")
    assert str(raised.value).startswith("set.jsonl: line 2: ") and message in str(raised.value), str(raised.value)
    assert "\n" not in str(raised.value)


def test_an_empty_file_is_an_error():
    with pytest.raises(ItemsFormatError, match="no records"):
        parse_items("\n\n", "empty.jsonl")


def test_a_distance_belongs_to_section_references_only():
    with pytest.raises(ValueError, match="only incorrect_section_references carry a distance"):
        GoldFinding(category="unused_defined_terms", term="X", location="1", distance=5)
    reference = GoldFinding(category="incorrect_section_references", wrong="3", correct="8", location="1",
                            distance=12_000)
    assert ScrubItem(contract_id="k", text="t", gold=(reference,)).gold[0].distance == 12_000
