"""The key that seals the hash cache's entries, kept outside the home.

The hash cache (`integrity.HashCache`) lets readers skip re-hashing a segment whose size, times and inode
have not changed since it last matched its manifest. Anyone who can write the home could otherwise rewrite
a segment and then write its new stat beside the old hash into the cache, and every report would read the
altered events without noticing. So each entry carries an HMAC over its path, stat and hash, keyed by 32
random bytes in a file of the user's own state folder (`$XDG_STATE_HOME/lhl/hash-cache.key`, by default
`~/.local/state/lhl/`, readable by its owner only; `LHL_CACHE_KEY_FILE` names another, e.g. a secret every
run pod mounts). An entry that does not carry a valid seal is ignored and the file hashed again.

What this cannot stop is someone who can read that key file, which means the same user account (or root):
against them only `lhl verify`, which never consults the cache, and a checkpoint head kept elsewhere
(`lhl verify --export`) help. When no key can be read or created, the cache is not used at all.
"""

from __future__ import annotations

import contextlib
import os
import stat
from functools import lru_cache
from pathlib import Path

KEY_FILE_ENV = "LHL_CACHE_KEY_FILE"
KEY_BYTES = 32


def key_path() -> Path:
    explicit = os.environ.get(KEY_FILE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "lhl" / "hash-cache.key"


def cache_key() -> bytes | None:
    """The sealing key (created on first use), or None when it cannot be read or created safely."""
    return _cached_key(str(key_path()))


@lru_cache(maxsize=4)
def _cached_key(path_text: str) -> bytes | None:
    path = Path(path_text)
    with contextlib.suppress(OSError):
        return _read(path) if path.exists() else _create(path)
    return None


def _read(path: Path) -> bytes | None:
    info = path.stat()
    # A key others could read or plant is no secret: only the owner's own, private file counts.
    if info.st_uid != os.getuid() or info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        return None
    data = path.read_bytes()
    return data if len(data) == KEY_BYTES else None


def _create(path: Path) -> bytes | None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first: use theirs
        return _read(path)
    with os.fdopen(fd, "wb") as fh:
        fh.write(os.urandom(KEY_BYTES))
    return _read(path)
