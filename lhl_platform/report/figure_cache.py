"""Figures computed from one read of the warehouse, kept in the home and served again while nothing they are
computed from has changed (issue #27: a small report's bootstrap intervals cost more than the rest of it).

An entry's key is a digest of everything the figures are a function of:
- the build read: its fingerprint (`_lhl_build`), a digest of the committed segments, the stored corpora and the
  SQL it was computed from, so any refresh that changes what the warehouse holds gives another key;
- the request (the scope asked for), the parameters (resamples, seed, ...) and what is computed (`what`);
- the code computing them: the size and modification time of every module and SQL file of the platform, and the
  versions of Python, numpy and DuckDB (the bootstrap's random streams are numpy's).
So an entry is never invalidated, only no longer looked up; the oldest are removed past `KEEP`. Each entry is sealed
with the key of the hash cache (`events/cache_key.py`): an entry altered in the home is not served, and without a
key nothing is cached. A connection that names no build (a read-only home's in-memory warehouse) is not cached, and
with `LHL_FIGURE_CACHE=off` nothing is (the test suite's shared demo home, which other workers copy while it is read,
so a read there must write nothing).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from lhl_platform.events.cache_key import cache_key
from lhl_platform.files import write_atomic
from lhl_platform.home import Home

T = TypeVar("T")
KEEP = 64  # entries kept per home (a few reports' worth for each of several builds)
SWITCH = "LHL_FIGURE_CACHE"
_PLATFORM = Path(__file__).resolve().parents[1]
_CODE = (_PLATFORM, _PLATFORM.parent / "sql")  # the platform's modules and its SQL (which Python reads too: rates)


def folder(home: Home) -> Path:
    return home.root / "cache" / "figures"


@lru_cache(maxsize=1)
def code_digest() -> str:
    """What the figures' code is: every platform module and SQL file by path, size and modification time (a stat
    each, no read), and the versions of the interpreter and the libraries that compute them."""
    from lhl_platform import __version__  # the reports' provenance names it

    digest = hashlib.sha256(f"{sys.version}\nlhl-platform={__version__}\n".encode())
    for dist in ("numpy", "duckdb"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            digest.update(f"{dist}={metadata.version(dist)}\n".encode())
    for root in _CODE:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(f for f in filenames if f.endswith((".py", ".sql"))):
                path = os.path.join(dirpath, name)
                info = os.stat(path)
                digest.update(f"{os.path.relpath(path, root.parent)}:{info.st_size}:{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def build_fingerprint(con: duckdb.DuckDBPyConnection) -> str | None:
    """The fingerprint of the build `con` reads (None when it names none)."""
    try:
        row = con.execute("select value from _lhl_build where name = 'fingerprint'").fetchone()
    except duckdb.Error:
        return None
    return str(row[0]) if row and row[0] else None


def entry_key(fingerprint: str, what: str, request: Mapping[str, Any], params: Mapping[str, Any]) -> str:
    text = json.dumps({"what": what, "build": fingerprint, "request": request, "params": params,
                       "code": code_digest()}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _seal(seal_key: bytes, key: str, body: str) -> str:
    return hmac.new(seal_key, f"{key}\n{body}".encode(), hashlib.sha256).hexdigest()


def switched_on() -> bool:
    """`LHL_FIGURE_CACHE`: on unless set off; a value that is neither is refused in one line."""
    value = os.environ.get(SWITCH, "").strip().lower()
    if value in ("", "1", "on", "true", "yes"):
        return True
    if value in ("0", "off", "false", "no"):
        return False
    raise ValueError(f"{SWITCH}={os.environ[SWITCH]!r} is neither on nor off (give on, off, 1 or 0)")


def cached(home: Home, con: duckdb.DuckDBPyConnection, what: str, request: Mapping[str, Any],
           params: Mapping[str, Any], compute: Callable[[], T], dump: Callable[[T], str],
           load: Callable[[str], T]) -> T:
    """`compute()`, or what it gave before for the same build, request, parameters and code. `dump` writes its
    result as text and `load` reads it back (the same value: a typed model's JSON, say)."""
    if not switched_on():
        return compute()
    fingerprint, seal_key = build_fingerprint(con), cache_key()
    if fingerprint is None or seal_key is None:
        return compute()
    key = entry_key(fingerprint, what, request, params)
    path = folder(home) / f"{key}.json"
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):  # missing, damaged or of other code
        entry = json.loads(path.read_text())
        if hmac.compare_digest(str(entry["seal"]), _seal(seal_key, key, str(entry["body"]))):
            return load(entry["body"])  # a sealed entry that no longer loads (a changed class) is computed again
    result = compute()
    body = dump(result)
    with contextlib.suppress(OSError):  # a read-only home computes every time (OutputError is one)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps({"seal": _seal(seal_key, key, body), "body": body}).encode())
        _prune(path.parent)
    return result


def _prune(where: Path) -> None:
    """The newest KEEP entries stay; so do writes in progress, but not those a crash left an hour ago."""
    with contextlib.suppress(OSError):  # another process pruning meanwhile
        for old in sorted(where.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)[:-KEEP]:
            old.unlink(missing_ok=True)
        stale = time.time() - 3600
        for left in where.glob(".*.tmp"):
            if left.stat().st_mtime < stale:
                left.unlink(missing_ok=True)
