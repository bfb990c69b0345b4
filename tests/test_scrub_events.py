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
    assert set(EVENT_PAYLOADS) == {"scrub.items_built", "scrub.items_ingested", "scrub.item", "scrub.scope",
                                   "scrub.findings_recorded", "scrub.findings_failed", "scrub.findings_imported",
                                   "scrub.scored"}
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


def test_the_event_types_are_registered_with_the_log_and_staged_flat():
    from lhl_platform.events.kinds import kind_of
    from lhl_platform.warehouse.staging import model_structure

    for name, payload in EVENT_PAYLOADS.items():
        kind = kind_of(name)
        assert kind.payload is payload and kind.staging == "stg_" + name.replace(".", "_")
    scored = model_structure(EVENT_PAYLOADS["scrub.scored"])
    assert scored["tp"] == "BIGINT" and scored["terms_tp"] == "BIGINT"
    assert scored["by_distance"] == [{"position": "BIGINT", "bucket": "VARCHAR", "gold": "BIGINT", "tp": "BIGINT"}]


def test_a_score_event_carries_one_calls_counts_and_a_key_per_answer():
    from lhl_platform.scrub.events import SCORER_VERSION, ScrubScored
    from lhl_platform.scrub.scoring import unit_score

    item = good("incorrect_party_references")
    gold = [g for g in item.gold if g.category == "incorrect_party_references"]
    unit = unit_score(2, "northwind", "incorrect_party_references", gold, [Finding(**g.model_dump(
        include={"category", "wrong", "correct", "location"})) for g in gold])
    event = ScrubScored.of(unit, model="m", item_set="abc", source="recorded", answer_key="k1")
    assert (event.run, event.gold, event.tp, event.fp, event.fn) == (2, 1, 1, 0, 0)
    assert event.terms_tp == 1 and event.scorer_version == SCORER_VERSION
    again = ScrubScored.of(unit, model="m", item_set="abc", source="recorded", answer_key="k2")
    assert event.key() != again.key() and event.key().startswith(f"scrub.scored:{SCORER_VERSION}:abc:m:2:")


def test_a_set_ingested_without_edits_is_labelled_external():
    from lhl_platform.scrub.events import EXTERNAL_PROVENANCE

    release = good("incorrect_party_references").model_copy(update={"source": None})
    event = items_ingested([release], "release.jsonl", export_items([release]))
    assert event.provenance == EXTERNAL_PROVENANCE and not event.provenance.startswith("self-built")
