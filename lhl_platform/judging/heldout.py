"""Held-out validation sets: written apart from a judge's rules, fixed, and hashed before any judge is tuned.

A held-out set is a JSONL file whose first line is its header: the set's name, what it was written from, whether
it is self-built, and `sha256`, the SHA-256 of every byte after that first line. The hash is checked on every
load, so a set edited after it was fixed (to make a judge pass, say) is refused in one line instead of quietly
becoming one more in-sample set. A changed set is a new set: a new file under a new name, with its own hash.
"""

from __future__ import annotations

import hashlib
import json

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class HeldOutError(ValueError):
    pass


class HeldOutHeader(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    set: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    self_built: bool
    fixed: str  # the date the set was fixed and hashed
    source: str
    written_from: str
    families: dict[str, str]  # family -> what its cases are


def content_sha256(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def read_hashed(text: str, name: str) -> tuple[HeldOutHeader, str]:
    """The header and the body (every line after the header) of a held-out file, once its hash is checked."""
    first, _, body = text.partition("\n")
    try:
        header = HeldOutHeader.model_validate(json.loads(first))
    except (ValueError, ValidationError) as exc:
        raise HeldOutError(f"{name}: line 1 is not a held-out set's header ({str(exc).splitlines()[0]})") from None
    found = content_sha256(body)
    if found != header.sha256:
        raise HeldOutError(f"{name}: held-out set {header.set} was altered after it was fixed (its cases hash to "
                           f"{found[:16]}, its header records {header.sha256[:16]}); a held-out set is never edited: "
                           "write a new one under a new name")
    return header, body
