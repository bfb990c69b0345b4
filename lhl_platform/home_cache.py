"""Values computed from a home's contents and the code, kept in the home (`<home>/cache/<folder>/`) and read back
while their key is unchanged: the report's figures (`report/figure_cache.py`) and the warehouse's SQL digest
(`warehouse/sql_digest.py`). A key names everything its value is a function of, so an entry is never invalidated,
only no longer looked up; the newest `keep` entries of a folder stay. Each entry is sealed with the key of the hash
cache (`events/cache_key.py`): one altered in the home is computed again, and without a key nothing is kept. A
read-only home computes every time, and with `LHL_FIGURE_CACHE=off` nothing is kept (the test suite's shared demo
home, which other workers copy while it is read, so a read there must write nothing)."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from lhl_platform.events.cache_key import cache_key
from lhl_platform.files import write_atomic
from lhl_platform.home import Home

T = TypeVar("T")
SWITCH = "LHL_FIGURE_CACHE"  # named for its first use; it switches every cache of this module


def switched_on(name: str = SWITCH) -> bool:
    """A switch in the environment (`LHL_FIGURE_CACHE` by default): on unless set off; a value that is neither is
    refused in one line."""
    value = os.environ.get(name, "").strip().lower()
    if value in ("", "1", "on", "true", "yes"):
        return True
    if value in ("0", "off", "false", "no"):
        return False
    raise ValueError(f"{name}={os.environ[name]!r} is neither on nor off (give on, off, 1 or 0)")


def folder(home: Home, name: str) -> Path:
    return home.root / "cache" / name


def _seal(seal_key: bytes, key: str, body: str) -> str:
    return hmac.new(seal_key, f"{key}\n{body}".encode(), hashlib.sha256).hexdigest()


def kept(where: Path, key: str, compute: Callable[[], T], dump: Callable[[T], str], load: Callable[[str], T], *,
         keep: int) -> T:
    """`compute()`, or what it gave before under `key` in the folder `where`. `dump` writes its result as text and
    `load` reads it back (the same value: a typed model's JSON, say)."""
    seal_key = cache_key() if switched_on() else None
    if seal_key is None:
        return compute()
    path = where / f"{key}.json"
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):  # missing, damaged or of other code
        entry = json.loads(path.read_text())
        if hmac.compare_digest(str(entry["seal"]), _seal(seal_key, key, str(entry["body"]))):
            return load(entry["body"])  # a sealed entry that no longer loads (a changed class) is computed again
    result = compute()
    body = dump(result)
    with contextlib.suppress(OSError):  # a read-only home computes every time (OutputError is one)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps({"seal": _seal(seal_key, key, body), "body": body}).encode())
        _prune(path.parent, keep)
    return result


def _prune(where: Path, keep: int) -> None:
    """The newest `keep` entries stay; so do writes in progress, but not those a crash left an hour ago."""
    with contextlib.suppress(OSError):  # another process pruning meanwhile
        for old in sorted(where.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)[:-keep]:
            old.unlink(missing_ok=True)
        stale = time.time() - 3600
        for left in where.glob(".*.tmp"):
            if left.stat().st_mtime < stale:
                left.unlink(missing_ok=True)
