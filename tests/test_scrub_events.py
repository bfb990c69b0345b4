"""What the ContractScrub suite records: typed, frozen payloads under dotted event types, for the platform to
register with the event log."""

import hashlib

import pytest
from pydantic import BaseModel, ValidationError

from lhl_platform.scrub.events import (
    EVENT_PAYLOADS,
    ScrubFindingsFailed,
    ScrubFindingsImported,
    ScrubFindingsRecorded,
    items_ingested,
)
from lhl_platform.scrub.items import Finding, export_items, item_set_id
from tests.test_scrub_verify import good


def test_every_event_type_is_dotted_under_scrub_and_its_payload_frozen_and_strict():
    assert set(EVENT_PAYLOADS) == {"scrub.items_built", "scrub.items_ingested", "scrub.findings_recorded",
                                   "scrub.findings_failed", "scrub.findings_imported"}
    for name, payload in EVENT_PAYLOADS.items():
        assert issubclass(payload, BaseModel), name
        assert payload.model_config.get("frozen") is True and payload.model_config.get("extra") == "forbid", name


def test_a_recorded_call_carries_its_findings_and_request_key():
    found = (Finding(category="defined_terms", term="Licensor", location="P"),)
    event = ScrubFindingsRecorded(model="scrub-rules", run=1, item_set="abc", contract_id="K1",
                                  category="defined_terms", findings=found, request_key="k" * 64,
                                  prompt_version="scrub-v1")
    assert ScrubFindingsRecorded.model_validate_json(event.model_dump_json()) == event
    with pytest.raises(ValidationError):
        ScrubFindingsRecorded.model_validate({**event.model_dump(), "cost": 1.0})
    with pytest.raises(ValidationError, match="frozen"):
        event.run = 3
    failed = ScrubFindingsFailed(model="m", run=1, item_set="abc", contract_id="K1", category="defined_terms",
                                 request_key="k", prompt_version="scrub-v1", reason="unparseable output: not JSON")
    assert "findings" not in failed.model_dump()  # a failure is a missing call, never an empty answer
    ScrubFindingsImported(model="m", run=1, item_set="abc", contract_id="K1", category="defined_terms",
                          findings=found, file_sha256="0" * 64, line=3)


def test_an_ingested_set_is_recorded_with_its_digest_and_contents():
    item = good("incorrect_party_references")
    data = export_items([item])
    event = items_ingested([item], "set.jsonl", data)
    assert event.item_set == item_set_id([item]) and event.file_sha256 == hashlib.sha256(data).hexdigest()
    assert event.gold["incorrect_party_references"] == 1 and event.gold["defined_terms"] >= 8
    assert event.injected is True and event.contract_ids == ("northwind",)
    release = item.model_copy(update={"source": None})
    assert items_ingested([release], "release.jsonl", export_items([release])).injected is False
