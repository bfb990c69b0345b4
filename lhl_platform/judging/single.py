"""Judge ad-hoc (truth, extracted) pairs, for people debugging a verdict (`lhl judge`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from lhl_platform.domain.taxonomy import canonical_clause_type
from lhl_platform.jsonl import describe, json_problem
from lhl_platform.judging.prompts import judge_request
from lhl_platform.judging.verdict import parse_verdict
from lhl_platform.providers.base import ChatModel, safe_complete


class Pair(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clause_type: str
    truth: str | list[str]
    extracted: str
    id: str | int | None = None

    @field_validator("clause_type")
    @classmethod
    def _canonical(cls, value: str) -> str:
        return canonical_clause_type(value)


def judge_pairs(model: ChatModel, lines: Iterable[str]) -> list[dict[str, Any]]:
    """One result per non-empty line, in order: the verdict, or an `error` naming what was wrong."""
    results: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            pair = Pair.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValidationError) as exc:
            msg = describe(exc, Pair) if isinstance(exc, ValidationError) else f"not valid JSON: {json_problem(exc)}"
            results.append({"line": number, "error": f"line {number}: {msg}"})
            continue
        truth = (pair.truth,) if isinstance(pair.truth, str) else tuple(pair.truth)
        request = judge_request(model, pair.clause_type, truth, pair.extracted)
        verdict, problem = parse_verdict(asyncio.run(safe_complete(model, request)))
        head: dict[str, Any] = {"id": pair.id} if pair.id is not None else {}
        if verdict is None:
            results.append({**head, "line": number, "error": f"line {number}: {problem}"})
        else:
            results.append({**head, "verdict": verdict.verdict.value, "mismatch_type": verdict.mismatch_type.value,
                            "reason": verdict.reason})
    return results
