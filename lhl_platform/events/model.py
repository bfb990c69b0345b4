"""The event record: immutable, content-hashed and chained within its stream."""

from __future__ import annotations

import builtins
import hashlib
import json
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.events.kinds import EventPayloadError, payload_of

P = TypeVar("P", bound=BaseModel)

GENESIS = "0" * 64


def canonical_json(value: Any) -> str:
    """One byte-stable JSON spelling of a value (request keys, registry keys), so equal values hash equal."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    event_id: str
    stream: str
    seq: int = Field(ge=0)
    type: str = Field(pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$")
    subject: str
    idempotency_key: str = Field(min_length=1)
    payload: str
    payload_hash: str
    prev_hash: str
    chain_hash: str
    time: str
    code_version: str

    @staticmethod
    def chain(prev_hash: str, *, event_id: str, stream: str, seq: int, type: str, subject: str,
              idempotency_key: str, payload_hash: str, time: str, code_version: str) -> str:
        header = canonical_json([prev_hash, event_id, stream, seq, type, subject, idempotency_key,
                                 payload_hash, time, code_version])
        return sha256_hex(header)

    def expected_chain(self, prev_hash: str) -> str:
        return Event.chain(prev_hash, event_id=self.event_id, stream=self.stream, seq=self.seq,
                           type=self.type, subject=self.subject, idempotency_key=self.idempotency_key,
                           payload_hash=self.payload_hash, time=self.time, code_version=self.code_version)

    def data(self) -> BaseModel:
        """The payload, validated against its event type's class."""
        return payload_of(self.type, self.payload)

    def data_as(self, cls: builtins.type[P]) -> P:
        """The payload as the class the reader expects (which must be its type's class)."""
        data = self.data()
        if not isinstance(data, cls):
            raise EventPayloadError(f"event {self.type} holds a {type(data).__name__}, not a {cls.__name__}")
        return data


EVENT_COLUMNS: tuple[str, ...] = tuple(Event.model_fields)
