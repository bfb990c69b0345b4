"""The extraction task: one contract, all clause types, and the structured answer it must validate against."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.providers.base import Task


class ClauseAnswer(BaseModel):
    """Structured output of extraction, per clause type."""

    model_config = ConfigDict(extra="forbid")
    clause_type: str
    present: bool
    quotes: list[str] = Field(default_factory=list)


class ExtractionOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clauses: list[ClauseAnswer]


class ExtractTask(Task):
    """Extract all clause types from one contract."""

    kind: Literal["extract"] = "extract"
    contract_id: str
    contract_text: str
    clause_types: tuple[str, ...]

    def subject(self) -> str:
        return self.contract_id


ExtractTask.output = ExtractionOutput
