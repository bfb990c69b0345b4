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
    PASS = "judge.pass"


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


class JudgePass(Payload):
    """What one judge pass over a (model, run) partition labelled: the contracts (cells) every true positive of
    which the judge has a verdict on when the pass ends (a cell without a TP included: there was nothing to label).
    A contract extracted after the pass is in no pass until the judge runs again, so it is unlabelled."""

    judge: str
    model: str
    run: int
    contract_ids: list[str]
    true_positives: int  # of the partition when the pass ended
    labelled: int  # of those, with a verdict by the judge


register_events({VerdictEvent.RECORDED: VerdictRecorded, VerdictEvent.FAILED: VerdictFailed,
                 VerdictEvent.PASS: JudgePass}, owner=__name__,
                staging={VerdictEvent.RECORDED: "stg_verdicts", VerdictEvent.FAILED: "stg_verdict_failures",
                         VerdictEvent.PASS: "stg_judge_passes"})
