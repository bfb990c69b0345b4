"""Structured output: the JSON schema each provider is handed, and the strict parsing of what comes back; and
free-text tasks (`Task.free_text`), sent with no schema, whose reply text becomes the output's `text` field."""

from __future__ import annotations

import functools
import json
from typing import Any

from pydantic import BaseModel, ValidationError

from lhl_platform.providers.base import ModelRequest


def output_schema(request: ModelRequest) -> type[BaseModel]:
    """The Pydantic class the request's answer must validate against."""
    schema: type[BaseModel] = request.task.output
    return schema


def wire_schema(request: ModelRequest) -> type[BaseModel] | None:
    """The schema a provider is asked to answer in; None for a free-text task (no structured output)."""
    return None if request.task.free_text else output_schema(request)


def parse_free_text(text: str, schema: type[BaseModel]) -> tuple[dict[str, Any] | None, str]:
    """A free-text reply as the task's output (`{"text": ...}`), or None and what is wrong (an empty reply)."""
    if not text.strip():
        return None, "empty answer"
    try:
        return schema.model_validate({"text": text}).model_dump(mode="json"), ""
    except ValidationError as exc:
        return None, f"the answer does not fit {schema.__name__}: {exc.errors()[0]['msg']}"


@functools.cache
def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema made strict: every property required, no additional properties, no defaults."""

    def tighten(node: Any) -> Any:
        if isinstance(node, dict):
            node = {k: tighten(v) for k, v in node.items() if k not in ("default", "title")}
            if node.get("type") == "object" and "properties" in node:
                node["required"] = list(node["properties"])
                node["additionalProperties"] = False
            return node
        if isinstance(node, list):
            return [tighten(v) for v in node]
        return node

    schema: dict[str, Any] = tighten(model.model_json_schema())
    return schema


def parse_structured(text: str, schema: type[BaseModel]) -> tuple[dict[str, Any] | None, str]:
    """The reply validated against the schema, or None and a one-line description of what is wrong
    (worded for the model to read in the repair attempt)."""
    cleaned = text.strip()
    if cleaned.startswith("```"):  # some OpenAI-compatible servers wrap JSON in a code fence
        cleaned = cleaned.strip("`").removeprefix("json").strip()
    try:
        return schema.model_validate_json(cleaned).model_dump(mode="json"), ""
    except ValidationError as exc:
        if exc.errors()[0]["type"] == "json_invalid":
            try:
                json.loads(cleaned)
            except json.JSONDecodeError as bad:
                return None, f"not valid JSON ({bad.msg} at character {bad.pos})"
        first = exc.errors()[0]
        return None, f"JSON does not match the schema at {'.'.join(map(str, first['loc'])) or 'top'}: {first['msg']}"
