"""A reviewable thing's `ref`: the first 16 hex digits of the SHA-256 of what it is (suite, item set, item, kind,
category and content) and, for an injected edit, where it sits in the source contract (two edits of the same words
are two things), never of row order or of offsets a later gold version moves, so every export of a gold version
gives the same refs and a decision keeps meaning the same thing."""

from __future__ import annotations

import hashlib
import json


def ref_of(*parts: object) -> str:
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
