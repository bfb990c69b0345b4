"""Credentials never enter the registry, events, logs or the database: find anything that looks like one.

Keys come from the environment only. Anything registered (params, base URL) is scanned at every depth for
a credential-looking key name, a value that looks like a key, or user-info in a URL. A finding names the
path (`params.extra_headers.Authorization`), never the value.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

# Key names that hold credentials; `api_key_env` names an environment variable, not a key, and is allowed.
_SECRET_NAME = re.compile(r"(api[_-]?key|apikey|access[_-]?key|token|secret|passw(or)?d|passwd|authori[sz]ation"
                          r"|bearer|credential|private[_-]?key|cookie|session[_-]?id|^auth$|^x-[a-z-]*key$)",
                          re.IGNORECASE)
_ALLOWED_NAMES = {"api_key_env", "max_output_tokens", "expected_output_tokens", "tpm"}
# Values: well-known provider key prefixes, an Authorization scheme, or a long high-entropy string.
_SECRET_VALUE = re.compile(r"^\s*(bearer\s+\S|basic\s+\S)|(^|[^a-z0-9])(sk-|sk_live_|sk_test_|sk-ant-|sk-proj-"
                           r"|AIza[0-9A-Za-z_-]{10}|ghp_|gho_|github_pat_|xox[abpr]-|hf_[A-Za-z0-9]{10}|AKIA[0-9A-Z]{12}"
                           r"|ya29\.|glpat-|r8_[A-Za-z0-9]{10}|gsk_[A-Za-z0-9]{10})", re.IGNORECASE)
_TOKENISH = re.compile(r"[A-Za-z0-9_\-+/=.]{32,}")


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def looks_like_key(value: str) -> bool:
    if _SECRET_VALUE.search(value):
        return True
    # A long run of mixed letters and digits with high entropy: an opaque token, not prose or a path.
    for run in _TOKENISH.findall(value):
        mixed = any(c.isdigit() for c in run) and any(c.isalpha() for c in run)
        if mixed and "/" not in run.strip("/") and _entropy(run) >= 4.0:
            return True
    return False


def url_has_userinfo(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return bool(parts.username or parts.password)


def _walk(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            name = str(key)
            where = f"{path}.{name}"
            if name not in _ALLOWED_NAMES and _SECRET_NAME.search(name):
                yield where, "is a credential-looking name"
                continue
            yield from _walk(item, where)
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]")
    elif isinstance(value, str):
        if url_has_userinfo(value) and "://" in value:
            yield path, "holds a URL with user-info (user:password@)"
        elif looks_like_key(value):
            yield path, "holds a value that looks like a credential"


def find_secret(value: Any, path: str) -> str | None:
    """A one-line description of the first credential-looking item, naming its path and never its value."""
    for where, what in _walk(value, path):
        return (f"{where} {what}; credentials come from the environment only "
                "(name the variable with params.api_key_env)")
    return None
