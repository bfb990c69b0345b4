"""The judge-validation suite's events: every item a judge labelled, and the judge's result. Registered with the
log when this module is imported."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from lhl_platform.domain.models import MismatchType, Usage, VerdictLabel
from lhl_platform.events.kinds import register_events
from lhl_platform.events.payloads import Payload


class ValidationEvent(StrEnum):
    ITEM = "judge.validation_item"
    SCORE = "judge.validation_score"
    VALIDATED = "judge.validated"


class JudgeValidationItem(Payload):
    """One suite item as a judge labelled it (kept so a rerun never calls the judge for it again)."""

    judge: str
    suite_digest: str
    item_id: str
    family: str
    kind: str
    request_key: str
    verdict: VerdictLabel | None
    mismatch_type: MismatchType | None
    reason: str = ""
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


class JudgeValidationScore(Payload):
    """A judge's graded score (0-10) of one suite item's truth against one of its three texts: the identical text,
    the edited one or an unrelated span (LexFlip), one of `samples` such scores for an LLM judge (each a recorded
    call; their mean is the pair's score). `rating` is None when the call gave no usable score."""

    judge: str
    suite_digest: str
    item_id: str
    pair: Literal["identical", "edited", "unrelated"]
    request_key: str
    rating: float | None
    sample: int = Field(default=0, ge=0)  # which of the k samples averaged for the pair (an LLM scorer's, k = 5)
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)


class JudgeValidated(Payload):
    """A judge's result on the dissociation suite: per family, the share judged as expected."""

    judge: str
    judge_model_id: str
    judge_version: str
    corpus_id: str
    suite_version: str
    suite_digest: str
    seed: int
    items: int
    passed: bool
    families: dict[str, dict[str, Any]]
    in_sample: list[str] = Field(default_factory=list)  # the families the judge's rules were written from
    samples: int = 1  # graded scores averaged per (item, pair)
    held_out: dict[str, Any] | None = None  # the result on the held-out set (`HeldOutResult`), reported apart


register_events({ValidationEvent.ITEM: JudgeValidationItem, ValidationEvent.SCORE: JudgeValidationScore,
                 ValidationEvent.VALIDATED: JudgeValidated},
                owner=__name__, staging={ValidationEvent.ITEM: "stg_judge_validation_items",
                                         ValidationEvent.SCORE: "stg_judge_validation_scores",
                                         ValidationEvent.VALIDATED: "stg_judge_validated"})
