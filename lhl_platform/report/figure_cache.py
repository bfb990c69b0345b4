"""Figures computed from one read of the warehouse, kept in the home and served again while nothing they are
computed from has changed (issue #27: a small report's bootstrap intervals cost more than the rest of it).

An entry's key is a digest of everything the figures are a function of:
- the build read: its fingerprint (`_lhl_build`), a digest of the committed segments, the stored corpora and the
  SQL it was computed from, so any refresh that changes what the warehouse holds gives another key;
- the request (the scope asked for), the parameters (resamples, seed, ...) and what is computed (`what`);
- the code computing them (`lhl_platform.code_digest`): the size and modification time of every module and SQL file
  of the platform, and the versions of Python and the libraries (the bootstrap's random streams are numpy's).
Entries are kept and sealed as every cache in the home is (`lhl_platform/home_cache.py`; the newest `KEEP` stay,
and `LHL_FIGURE_CACHE=off` turns them off). A connection that names no build (a read-only home's in-memory
warehouse) is not cached.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from lhl_platform.code_digest import code_digest
from lhl_platform.home import Home
from lhl_platform.home_cache import folder as cache_folder
from lhl_platform.home_cache import kept, switched_on

T = TypeVar("T")
KEEP = 64  # entries kept per home (a few reports' worth for each of several builds)


def folder(home: Home) -> Path:
    return cache_folder(home, "figures")


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


def cached(home: Home, con: duckdb.DuckDBPyConnection, what: str, request: Mapping[str, Any],
           params: Mapping[str, Any], compute: Callable[[], T], dump: Callable[[T], str],
           load: Callable[[str], T]) -> T:
    """`compute()`, or what it gave before for the same build, request, parameters and code (`home_cache.kept`)."""
    if not switched_on():  # read before the build, so that a bad value is refused whatever is read
        return compute()
    fingerprint = build_fingerprint(con)
    if fingerprint is None:
        return compute()
    return kept(folder(home), entry_key(fingerprint, what, request, params), compute, dump, load, keep=KEEP)
