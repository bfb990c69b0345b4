"""The evaluation judge's events on an audited partition's true positives. Registered with the log when this
module is imported."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from lhl_platform.domain.models import MismatchType, Usage, VerdictLabel
from lhl_platform.events.kinds import register_events
from lhl_platform.events.payloads import ModelCall, Payload


class VerdictEvent(StrEnum):
    RECORDED = "verdict.recorded"
    FAILED = "verdict.failed"


class VerdictRecorded(Payload):
    """Every verdict of every judge on a true positive, with the judge's identity."""

    model: str
    run: int
    contract_id: str
    clause_type: str
    verdict: VerdictLabel
    mismatch_type: MismatchType
    reason: str
    judge: str
    judge_model_id: str
    prompt_version: str
    request_key: str
    usage: Usage
    latency_s: float
    params: dict[str, Any]


class VerdictFailed(ModelCall):
    """A judge call that gave no usable verdict; the instance stays unjudged until a re-run."""

    judge: str
    contract_id: str
    clause_type: str
    reason: str


register_events({VerdictEvent.RECORDED: VerdictRecorded, VerdictEvent.FAILED: VerdictFailed}, owner=__name__,
                staging={VerdictEvent.RECORDED: "stg_verdicts", VerdictEvent.FAILED: "stg_verdict_failures"})
