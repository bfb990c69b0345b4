"""A judge's answer read as a typed verdict: the one parser every judging stage (clause, LexFlip, held-out) shares."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from lhl_platform.calls.ledger import Unusable
from lhl_platform.domain.models import MismatchType, Verdict, VerdictLabel
from lhl_platform.judging.task import JudgeOutput
from lhl_platform.providers.base import ModelResponse


def verdict_of(content: dict[str, Any] | None) -> Verdict:
    """A judge's answer as a verdict, or Unusable."""
    try:
        out = JudgeOutput.model_validate(content or {})
        return Verdict(verdict=VerdictLabel(out.verdict), mismatch_type=MismatchType(out.mismatch_type),
                       reason=out.reason)
    except ValidationError as exc:
        raise Unusable(f"unparseable verdict: {exc.errors()[0]['msg']}") from None


def parse_verdict(response: ModelResponse) -> tuple[Verdict | None, str]:
    """A response's verdict, or None and why there is none."""
    if response.error:
        return None, response.error
    try:
        return verdict_of(response.content), ""
    except Unusable as exc:
        return None, exc.reason
