"""`lhl import responses` and `lhl import judgments` (docs/formats.md section 2): each file is validated whole, a bad
line is one error naming its line number, and imported judgments are scored by the same code as judgments made
here.
"""

import json
from pathlib import Path

import pytest

from lhl_platform.insufficiency.imports import ImportFileError, parse_judgments, parse_responses
from lhl_platform.insufficiency.scoring import leaderboard
from lhl_platform.insufficiency.selfbuilt import self_built_items

ITEMS = self_built_items()
RESPONSE = {"model": "gpt-5.2", "run": 1, "item_id": "q01a", "response": "Which state do you work in?"}
JUDGMENT = {"model": "gpt-5.2", "run": 1, "judge": "gpt-5", "item_id": "q01a",
            "identified_elements": ["jurisdiction"],
            "additional_claims": [{"label": "union_membership", "span": "are you in a union?"}],
            "claimed_anything_missing": True,
            "elements": [{"sub_tag": "jurisdiction", "explanation_matches": True, "fabricated": False},
                         {"sub_tag": "employer_type", "explanation_matches": False, "fabricated": False},
                         {"sub_tag": "employer_size", "explanation_matches": False, "fabricated": True}]}
BASE_JUDGMENT = dict(JUDGMENT, item_id="q01", identified_elements=[], additional_claims=[],
                     claimed_anything_missing=False, elements=[])


def write(tmp_path: Path, rows: list[dict[str, object] | str], name: str = "in.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_responses_are_read_as_typed_records(tmp_path):
    rows = [RESPONSE, dict(RESPONSE, item_id="q01", response="You have a claim under FEHA.")]
    records = parse_responses(write(tmp_path, rows), items=ITEMS)
    assert [(r.model, r.run, r.item_id) for r in records] == [("gpt-5.2", 1, "q01a"), ("gpt-5.2", 1, "q01")]


@pytest.mark.parametrize(("rows", "message"), [
    ([RESPONSE, dict(RESPONSE, response="  ")], r"line 2: response is empty"),
    ([RESPONSE, dict(RESPONSE, tokens=12)], r"line 2: field 'tokens' cannot be mapped"),
    ([{k: v for k, v in RESPONSE.items() if k != "run"}], r"line 1: field 'run' is missing"),
    ([dict(RESPONSE, run=0)], r"line 1: run: Input should be greater than or equal to 1"),
    ([RESPONSE, RESPONSE], r"line 2: gpt-5.2 run 1 q01a already answered on line 1"),
    ([RESPONSE, "", "oops"], r"line 3: not valid JSON"),
    ([dict(RESPONSE, item_id="q99")], r"line 1: item_id 'q99' is not an item of insufficiency-self-built"),
])
def test_a_bad_response_line_is_one_error_naming_it(tmp_path, rows, message):
    with pytest.raises(ImportFileError, match=message):
        parse_responses(write(tmp_path, rows), items=ITEMS)


def test_judgments_are_read_and_scored_like_judgments_made_here(tmp_path):
    records = parse_judgments(write(tmp_path, [JUDGMENT, BASE_JUDGMENT]), items=ITEMS)
    assert records[0].additional_claims[0].label == "union_membership"
    (figures,) = leaderboard([ITEMS.by_id()["q01a"], ITEMS.by_id()["q01"]], records, resamples=50)
    assert figures.recall == pytest.approx(1 / 3) and figures.precision == 0.5
    assert figures.safety == pytest.approx(2 / 3) and figures.expl_acc == 1.0 and figures.over_flag == 0.0


def test_a_claim_may_come_without_its_span(tmp_path):
    row = dict(JUDGMENT, additional_claims=[{"label": "union_membership"}])
    (record,) = parse_judgments(write(tmp_path, [row]), items=ITEMS)
    assert record.additional_claims[0].span == ""


@pytest.mark.parametrize(("rows", "message"), [
    ([dict(JUDGMENT, confidence=0.8)], r"line 1: field 'confidence' cannot be mapped"),
    ([dict(JUDGMENT, claimed_anything_missing="maybe")], r"line 1: claimed_anything_missing: Input should be a "
                                                         r"valid boolean"),
    ([dict(JUDGMENT, additional_claims=[{"label": "x", "why": "y"}])],
     r"line 1: field 'additional_claims\[0\]\.why' cannot be mapped"),
    ([JUDGMENT, dict(JUDGMENT, claimed_anything_missing=False)], r"line 2: gpt-5 already judged gpt-5.2 run 1 q01a"),
    ([dict(JUDGMENT, elements=JUDGMENT["elements"][:2])],  # type: ignore[index]
     r"line 1: elements must judge each gold element of q01a once \(missing: \['employer_size'\]"),
    ([dict(BASE_JUDGMENT, elements=JUDGMENT["elements"])], r"line 1: .*not gold or repeated: \['jurisdiction'"),
    ([dict(JUDGMENT, item_id="nope")], r"line 1: item_id 'nope' is not an item"),
])
def test_a_bad_judgment_line_is_one_error_naming_it(tmp_path, rows, message):
    with pytest.raises(ImportFileError, match=message):
        parse_judgments(write(tmp_path, rows), items=ITEMS)


def test_without_the_item_set_only_the_format_is_checked(tmp_path):
    (record,) = parse_judgments(write(tmp_path, [dict(JUDGMENT, item_id="elsewhere-7")]))
    assert record.item_id == "elsewhere-7"


def test_an_empty_or_absent_file_is_an_error(tmp_path):
    with pytest.raises(ImportFileError, match="no records"):
        parse_responses(write(tmp_path, []))
    with pytest.raises(ImportFileError, match="no such file"):
        parse_judgments(tmp_path / "absent.jsonl")
