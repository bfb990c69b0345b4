"""The judge-validation suite's events: every item a judge labelled, and the judge's result. Registered with the
log when this module is imported."""

from __future__ import annotations

from collections.abc import Sequence
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


class HeldOutFamily(Payload):
    """One family of a held-out set as a judge did on it (`scoring.FamilyResult`, its gate figures)."""

    family: str
    items: int
    decided: int
    undetermined: int
    unanswered: int
    decided_share: float | None
    as_expected: float | None
    accuracy_decided: float | None
    right_mismatch: float | None
    passed: bool


class HeldOutSummary(Payload):
    """A judge's result on one held-out set: what the gate reads."""

    set: str
    sha256: str
    self_built: bool
    items: int
    passed: bool
    families: list[HeldOutFamily]


class JudgeValidated(Payload):
    """A judge's validation: `passed` is the held-out gate's (`gate`: every held-out set of `held_out_sets`
    passed); the in-sample suite's families and its own result (`in_sample_passed`) are kept beside it and never
    validate. A result recorded before the gate (no `gate`) carries its in-sample result as `passed` and its one
    held-out set as `held_out`, and validates nothing (`status`)."""

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
    held_out: dict[str, Any] | None = None  # before the gate: the result on the one held-out set (`HeldOutResult`)
    gate: str | None = None  # "held_out": `passed` is the held-out sets' result
    in_sample_passed: bool | None = None
    held_out_sets: list[HeldOutSummary] = Field(default_factory=list)

    def status(self, shipped: Sequence[tuple[str, str]]) -> bool | None:
        """Whether this result validates the judge under the held-out gate, against the held-out sets `shipped`
        now ((name, sha256) pairs): True when it passed every one, False when it failed one, None when it lacks
        one (recorded before that set was added, or before the gate): validate again. As the `judge_validations`
        mart decides it."""
        found = {(h.set, h.sha256): h.passed for h in self.held_out_sets}
        results = [found.get((name, sha)) for name, sha in shipped]
        if not shipped or any(r is None for r in results):
            return None
        return all(r is True for r in results)


register_events({ValidationEvent.ITEM: JudgeValidationItem, ValidationEvent.SCORE: JudgeValidationScore,
                 ValidationEvent.VALIDATED: JudgeValidated},
                owner=__name__, staging={ValidationEvent.ITEM: "stg_judge_validation_items",
                                         ValidationEvent.SCORE: "stg_judge_validation_scores",
                                         ValidationEvent.VALIDATED: "stg_judge_validated"})
