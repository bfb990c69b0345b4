"""A check's outcome: what every suite's checks return, for the Dagster asset checks, the checks section of every
report and `--strict` publishing. The checks themselves are their suite's (the clause suite's:
`lhl_platform/clause/checks.py`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class CheckOutcome(BaseModel):
    name: str
    passed: bool
    description: str
    summary: str
    metadata: dict[str, Any] = Field(default_factory=dict)
