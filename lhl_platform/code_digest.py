"""What the platform's code is, cheaply: every module, SQL file and shipped JSONL data file (held-out sets) of the
platform by path, size, modification and change time (a stat each, no read), with the versions of the interpreter and of
the libraries whose behaviour results depend on. Caches in the home key their entries by it (the report's figures,
the warehouse's SQL digest), so an edited file or an upgraded library is never served what the old code
computed."""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Iterator
from functools import lru_cache
from importlib import metadata
from pathlib import Path

_PLATFORM = Path(__file__).resolve().parent
ROOTS = (_PLATFORM, _PLATFORM.parent / "sql")  # the platform's modules and its SQL (which Python reads too: rates)
LIBRARIES = ("numpy", "duckdb", "pydantic")  # the bootstrap's random streams, the SQL, the payloads' schemas


@lru_cache(maxsize=1)
def code_digest() -> str:
    """This machine's key for the code: each file by size, modification time, change time and inode (a stat each;
    the change time and inode because a build may set every modification time to one date, while any write of a
    file's bytes moves its change time)."""
    digest = _versions()
    for path, name in _files():
        info = os.stat(path)
        digest.update(f"{name}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}:{info.st_ino}\n".encode())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def code_content_digest() -> str:
    """The same code's key on any machine: each file by its bytes (a read each, ~2 MB: what keys a result shared
    between machines, which a checkout's modification times would tell apart)."""
    digest = _versions()
    for path, name in _files():
        with open(path, "rb") as fh:
            digest.update(f"{name}:{hashlib.sha256(fh.read()).hexdigest()}\n".encode())
    return digest.hexdigest()


def _versions() -> hashlib._Hash:
    from lhl_platform import __version__

    digest = hashlib.sha256(f"{sys.version}\nlhl-platform={__version__}\n".encode())
    for dist in LIBRARIES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            digest.update(f"{dist}={metadata.version(dist)}\n".encode())
    return digest


def _files() -> Iterator[tuple[str, str]]:
    """Each covered file: its path, and its name relative to the checkout."""
    for root in ROOTS:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(f for f in filenames if f.endswith((".py", ".sql", ".jsonl"))):
                path = os.path.join(dirpath, name)
                yield path, os.path.relpath(path, root.parent)


def platform_relative(path: str) -> str:
    """A path of the platform's own as it is named in every checkout (relative to the checkout's root)."""
    return str(Path(path).resolve().relative_to(_PLATFORM.parent))


def under_platform(path: str | None) -> bool:
    """Whether a file is one of the platform's own, which `code_digest` covers."""
    return path is not None and any(Path(path).resolve().is_relative_to(root) for root in ROOTS)
