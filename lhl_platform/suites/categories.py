"""Declarative per-category tasks: a suite that asks one call per (item, category) names each category's answer
shape once, and the answer schema and the task class of every category are made from that table.

The classes keep the names a hand-written class would have (`DefinedTermsFindings`, `DefinedTermsTask`):
providers send the schema's class name with a structured-output request, so it is part of what a model sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, create_model

from lhl_platform.providers.base import Task

K = TypeVar("K", bound=str)
T = TypeVar("T", bound=Task)


def camel(key: str) -> str:
    """`defined_terms` -> `DefinedTerms`."""
    return "".join(part.title() for part in key.split("_"))


def category_outputs(shapes: Mapping[K, type[BaseModel]], base: type[BaseModel], module: str,
                     field: str = "findings", suffix: str = "Findings") -> dict[K, type[BaseModel]]:
    """Per category, the answer schema `{field: [shape, ...]}` (a `base` subclass named `<Category><suffix>`)."""
    fields: dict[str, Any] = {}
    out: dict[K, type[BaseModel]] = {}
    for key, shape in shapes.items():
        fields[field] = (list[shape], ...)  # type: ignore[valid-type]
        out[key] = create_model(f"{camel(key)}{suffix}", __base__=base, __module__=module, **fields)
    return out


def category_tasks(outputs: Mapping[K, type[BaseModel]], base: type[T], module: str,
                   field: str = "category") -> dict[K, type[T]]:
    """Per category, the task class (a `base` subclass named `<Category>Task`) whose `field` is the category
    and whose `output` is its schema."""
    out: dict[K, type[T]] = {}
    for key, output in outputs.items():
        fields: dict[str, Any] = {field: (Literal[key], key)}
        task = create_model(f"{camel(key)}Task", __base__=base, __module__=module, **fields)
        task.output = output
        out[key] = task
    return out
