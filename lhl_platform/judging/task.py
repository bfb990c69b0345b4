"""The judging task: one extracted clause against the ground-truth spans, and the verdict it must give."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.providers.base import Task


class JudgeOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # "undetermined": a judge that abstains where its evidence does not decide (the offline `aligned` judge; an
    # LLM may too). Never counted as supported or as contradicted.
    verdict: Literal["supported", "contradicted", "undetermined"]
    mismatch_type: Literal["none", "numeric", "temporal", "obligation", "scope", "missing_condition",
                           "extra_condition", "other"]
    reason: str = ""


class JudgeTask(Task):
    """Compare one extracted clause with the ground-truth spans under the five-criterion rubric."""

    kind: Literal["judge"] = "judge"
    clause_type: str
    truth: tuple[str, ...]
    extracted: str


JudgeTask.output = JudgeOutput


class ScoreOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rating: float = Field(ge=0, le=10)


class ScoreTask(Task):
    """Rate from 0 to 10 how faithfully a text states the legal content of the source clause (LexFlip's graded
    view of a judge; a similarity metric answers with its similarity, a binary judge with 10 or 0)."""

    kind: Literal["judge-score"] = "judge-score"
    clause_type: str
    truth: tuple[str, ...]
    text: str


ScoreTask.output = ScoreOutput
