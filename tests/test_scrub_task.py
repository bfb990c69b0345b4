"""The ContractScrub task: one call per (contract, category), a strict findings schema per category, and
messages holding the category's title, definition, instruction and schema before the contract."""

import json

import pytest
from pydantic import ValidationError

from lhl_platform.providers.base import ModelRequest, Task
from lhl_platform.providers.llm.schema import parse_structured, strict_json_schema
from lhl_platform.scrub.categories import CATEGORIES, CATEGORY_KEYS
from lhl_platform.scrub.task import OUTPUTS, SCRUB_PROMPT_VERSION, ScrubTask, findings_of, scrub_messages, scrub_task


@pytest.mark.parametrize("key", CATEGORY_KEYS)
def test_each_category_is_a_task_with_its_own_strict_schema(key):
    task = scrub_task(key, "K1", "1. Licensee shall pay.")
    assert isinstance(task, ScrubTask) and isinstance(task, Task)
    assert task.kind == "scrub" and task.category == key and task.subject() == f"K1/{key}"
    assert task.output is OUTPUTS[key]
    schema = strict_json_schema(task.output)
    item = next(iter(schema["$defs"].values()))
    fields = next(c.fields for c in CATEGORIES if c.key == key)
    assert item["required"] == list(fields) and item["additionalProperties"] is False
    assert schema["required"] == ["findings"]


def test_an_answer_with_an_extra_or_missing_field_does_not_parse():
    schema = OUTPUTS["incorrect_section_references"]
    ok = {"findings": [{"wrong": "3", "correct": "8", "location": "12.2"}]}
    assert parse_structured(json.dumps(ok), schema)[0] == ok
    content, problem = parse_structured(json.dumps({"findings": [{"wrong": "3", "correct": "8", "location": "1",
                                                                  "page": 4}]}), schema)
    assert content is None and "findings.0.page" in problem
    content, problem = parse_structured('{"findings": [{"wrong": "3"}]}', schema)
    assert content is None and "findings.0.correct" in problem


def test_an_unknown_category_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown category 'typos'; choose one of: defined_terms, "):
        scrub_task("typos", "K1", "text")


def test_the_messages_give_the_category_then_the_contract():
    contract = "1. DEFINITIONS\n1.1 \"Licensor\" means Northwind Tools, Inc."
    task = scrub_task("unused_defined_terms", "K1", contract)
    system, user = scrub_messages(task)
    assert (system.role, user.role) == ("system", "user")
    cat = next(c for c in CATEGORIES if c.key == "unused_defined_terms")
    for part in (cat.title, cat.definition, cat.instruction, json.dumps(strict_json_schema(task.output),
                                                                        sort_keys=True)):
        assert part in system.content
    assert contract in user.content and contract not in system.content
    # The instructions do not depend on the contract: providers' prefix caches reuse them.
    assert scrub_messages(scrub_task("unused_defined_terms", "K2", "other text"))[0] == system
    assert scrub_messages(scrub_task("defined_terms", "K1", contract))[0] != system


def test_two_contracts_with_the_same_text_are_two_requests():
    def key(contract_id):
        task = scrub_task("defined_terms", contract_id, "same text")
        return ModelRequest(provider="offline", model_id="m", prompt_version=SCRUB_PROMPT_VERSION, run=1,
                            messages=scrub_messages(task), task=task).key()

    assert key("K1") != key("K2")


def test_an_answer_becomes_findings_of_its_category():
    found = findings_of("terms_defined_multiple_times",
                        {"findings": [{"term": "Term", "location": "1.1", "location_2": "9.2"}]})
    assert [(f.category, f.term, f.location, f.location_2) for f in found] == [
        ("terms_defined_multiple_times", "Term", "1.1", "9.2")]
    with pytest.raises(ValidationError):
        findings_of("terms_defined_multiple_times", {"findings": [{"term": "Term", "location": "1.1"}]})
