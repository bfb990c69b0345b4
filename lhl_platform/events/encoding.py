"""One canonical JSON spelling for every event payload, fast enough for the hottest write path.

A payload is stored as compact JSON with sorted keys and UTF-8 kept as it is, so equal payloads are stored
(and hashed) equal. orjson writes it from the model's own field values when the class serializes its fields
as they are (no custom serializers, computed or excluded fields, or extra fields), which is about five times
faster than `model_dump`; any other class goes through `model_dump(mode="json")` first, so what its
serializers say is what is stored. Nested models follow the same rule.

Floats are spelled by orjson (shortest round-trip form, e.g. `1e-05` as `0.00001`), so a stored payload is not
byte-equal to `canonical_json` of the same value; nothing compares the two, since a payload's hash is taken over
the text as stored. Request keys keep using `canonical_json`, so recorded calls still answer the same requests.
"""

from __future__ import annotations

import functools
from typing import Any

import orjson
from pydantic import BaseModel

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


@functools.cache
def _fields_as_they_are(cls: type[BaseModel]) -> bool:
    """Whether `model_dump` of this class would give exactly its field values (so `__dict__` can be written)."""
    decorators = cls.__pydantic_decorators__
    return (not decorators.field_serializers and not decorators.model_serializers
            and not cls.model_computed_fields and cls.model_config.get("extra") != "allow"
            and not any(f.exclude for f in cls.model_fields.values()))


def _values(model: BaseModel) -> Any:
    return model.__dict__ if _fields_as_they_are(type(model)) else model.model_dump(mode="json")


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return _values(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def encode_payload(payload: BaseModel) -> bytes:
    """The payload's canonical JSON as UTF-8 bytes."""
    return orjson.dumps(_values(payload), default=_default, option=_OPTIONS)
