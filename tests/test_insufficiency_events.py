"""The suite's event payloads: one strict, frozen class per dotted event type, importable by the event log without
the providers (so registering them cannot create an import cycle).
"""

import json
import re
import subprocess
import sys

import pytest
from pydantic import BaseModel, ValidationError

from lhl_platform.domain.models import Usage
from lhl_platform.insufficiency.events import (
    EVENT_PAYLOADS,
    InsufficiencyEventType,
    ItemRecorded,
    ItemsIngested,
    JudgmentRecorded,
    ResponseFailed,
)
from lhl_platform.insufficiency.selfbuilt import self_built_items

EVENT_TYPE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$")  # the log's own rule (events/model.py)


def test_every_event_type_is_a_dotted_suite_name_with_one_payload_class():
    assert set(EVENT_PAYLOADS) == {t.value for t in InsufficiencyEventType}
    for name, cls in EVENT_PAYLOADS.items():
        assert type(name) is str and EVENT_TYPE.match(name) and name.startswith("insufficiency.")
        assert issubclass(cls, BaseModel)
        assert cls.model_config.get("frozen") is True and cls.model_config.get("extra") == "forbid", name


def test_payloads_round_trip_through_json_and_reject_unknown_fields():
    items = self_built_items()
    item = items.by_id()["q01a"]
    recorded = ItemRecorded(item_set_id=items.item_set_id, **item.model_dump())
    assert ItemRecorded.model_validate_json(recorded.model_dump_json()) == recorded
    ingested = ItemsIngested(item_set_id=items.item_set_id, name=items.name, provenance=items.provenance,
                             description=items.description, source=items.source, sha256=items.sha256,
                             base_items=len(items.bases()), variants=len(items.variants()),
                             missing_elements=sum(len(v.missing_elements) for v in items.variants()),
                             domains=sorted({i.domain for i in items.items}),
                             jurisdictions=sorted({i.jurisdiction for i in items.items}))
    assert json.loads(ingested.model_dump_json())["provenance"] == "self-built"
    with pytest.raises(ValidationError):
        ResponseFailed.model_validate({"item_set_id": "s", "model": "m", "run": 1, "item_id": "q01a",
                                       "request_key": "k", "finish_reason": "length", "reason": "cut at 32768",
                                       "retries": 3})
    with pytest.raises(ValidationError):  # a failure is a refusal, a truncation or an error, nothing else
        ResponseFailed(item_set_id="s", model="m", run=1, item_id="q01a", request_key="k", finish_reason="stop",
                       reason="")


def test_a_recorded_judgment_is_a_judgment_plus_what_identifies_its_calls():
    payload = JudgmentRecorded(
        model="m", run=1, judge="j", item_id="q01", identified_elements=(), additional_claims=(),
        claimed_anything_missing=False, elements=(), item_set_id="s", judge_model_id="insufficiency-cue-judge",
        judge_version="v1", identify_request_key="k", explain_request_key=None,
        identify_prompt_version="insufficiency-identify-v1", explain_prompt_version=None, dropped_identified=0,
        usage=Usage())
    assert JudgmentRecorded.model_validate_json(payload.model_dump_json()) == payload


def test_the_payload_module_imports_neither_the_providers_nor_the_event_log():
    code = ("import sys, lhl_platform.insufficiency.events; "
            "bad = [m for m in sys.modules if m.startswith(('lhl_platform.providers', 'lhl_platform.events'))]; "
            "print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
