"""The clause suite's instance events: what an extraction partition records per contract and clause type, and
instance outcomes imported from elsewhere. Registered with the log when this module is imported."""

from __future__ import annotations

from enum import StrEnum

from pydantic import ConfigDict

from lhl_platform.domain.models import Extraction, InstanceOutcome
from lhl_platform.events.kinds import register_events
from lhl_platform.events.payloads import Payload


class ExtractionEvent(StrEnum):
    RECORDED = "extraction.recorded"
    INCOMPLETE = "extraction.incomplete"
    FAILED = "extraction.failed"
    IMPORTED = "outcome.imported"


class ExtractionRecorded(Extraction):
    """One extracted instance: the model's answer for one (contract, clause type), from one call."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    corpus_id: str
    request_key: str


class ExtractionIncomplete(Payload):
    """A contract whose answer left clause types out or answered them badly."""

    model: str
    run: int
    contract_id: str
    problems: list[str]


class ExtractionFailed(Payload):
    """A contract with no usable answer: the stage that failed and why."""

    model: str
    run: int
    contract_id: str
    stage: str
    reason: str


class OutcomeImported(InstanceOutcome):
    """An imported instance outcome; it belongs to the corpus that was active when it was imported."""

    corpus_id: str = "imported"


register_events({ExtractionEvent.RECORDED: ExtractionRecorded, ExtractionEvent.INCOMPLETE: ExtractionIncomplete,
                 ExtractionEvent.FAILED: ExtractionFailed, ExtractionEvent.IMPORTED: OutcomeImported},
                owner=__name__,
                staging={ExtractionEvent.RECORDED: "stg_extractions",
                         ExtractionEvent.INCOMPLETE: "stg_extraction_incomplete",
                         ExtractionEvent.FAILED: "stg_extraction_failures", ExtractionEvent.IMPORTED: "stg_imports"})
