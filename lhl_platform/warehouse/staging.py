"""Staging models generated from the payload classes: one typed table per registered event type.

A staging model is the only SQL that reads raw events. It parses each event's payload once, with a DuckDB
structure derived from the payload's Pydantic class, into one column per field: text, numbers and booleans as
such, lists as lists, nested models as structs (`usage.input_tokens`), and free-form mappings as JSON; plus the
event's `stream`, `seq` and `time`. A field an older payload lacks is null. Nothing is renamed or derived here:
that is the intermediate models' work, so the payload classes are the one place that knows a payload's fields,
and a new event type needs no hand-written staging SQL.
"""

from __future__ import annotations

import json
import types
import typing
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel

from lhl_platform.events.kinds import EventKind

META_COLUMNS = ("stream", "seq", "time")


def _optional_free(annotation: Any) -> Any:
    """The annotation without its `None` option; any other union is free-form."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return options[0] if len(options) == 1 else Any
    if origin is typing.Annotated:
        return _optional_free(typing.get_args(annotation)[0])
    return annotation


def duckdb_structure(annotation: Any) -> Any:
    """The `from_json` structure of a value of this type."""
    annotation = _optional_free(annotation)
    origin = typing.get_origin(annotation)
    if origin is Literal:
        values = typing.get_args(annotation)
        return "VARCHAR" if all(isinstance(v, str) for v in values) else "JSON"
    if origin in (list, set, frozenset) or (origin is tuple and typing.get_args(annotation)[-1:] == (Ellipsis,)):
        return [duckdb_structure(typing.get_args(annotation)[0])]
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return model_structure(annotation)
        if issubclass(annotation, bool):
            return "BOOLEAN"
        if issubclass(annotation, (str, Enum)):
            return "VARCHAR"
        if issubclass(annotation, int):
            return "BIGINT"
        if issubclass(annotation, float):
            return "DOUBLE"
    return "JSON"


def model_structure(cls: type[BaseModel]) -> dict[str, Any]:
    """One entry per field, in declaration order; a field with a custom serializer is stored as it says: JSON."""
    custom = {name for d in cls.__pydantic_decorators__.field_serializers.values() for name in d.info.fields}
    return {name: "JSON" if name in custom else duckdb_structure(field.annotation)
            for name, field in cls.model_fields.items()}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def staging_sql(kind: EventKind) -> str:
    structure = model_structure(kind.payload)
    clash = set(structure) & set(META_COLUMNS)
    if clash:
        raise ValueError(f"{kind.payload.__name__} has fields named like event columns: {', '.join(sorted(clash))}")
    spec = json.dumps(structure, separators=(",", ":")).replace("'", "''")
    event_type = kind.name.replace("'", "''")
    return (f"select p.*, {', '.join(META_COLUMNS)}\n"
            f"from (select from_json(payload, '{spec}') as p, {', '.join(META_COLUMNS)}\n"
            f"      from events where type = '{event_type}')")


def staging_description(kind: EventKind) -> str:
    return f"One row per {kind.name} event, its payload as typed columns. {kind.description}".strip()
