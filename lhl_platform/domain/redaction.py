"""One redaction of credentials for every string the platform records, logs, prints or stores.

`secrets.py` keeps credentials out of what we *send* and *register*; this keeps them out of what comes
*back*: a server that answers a bad key with `401 Incorrect API key provided: Bearer sk-...` must not put
the key into a hash-chained event (which can never be removed), the warehouse, Dagster's storage or the
terminal. Two kinds of value are replaced by `[REDACTED]`:

* **the credentials in use**: every key `providers/llm/credentials.py` reads from the environment
  (registered here when read) and the providers' usual key variables present in the environment, in every
  form a server may echo: whole (also after `Bearer `), and its first or last characters beside a mask
  (`sk-can...XYZ`, `sk-proj-****XYZ`, `****XYZ`);
* **credential-shaped values**: the key shapes of the providers we call, as `secrets.py` refuses them at
  registration (`sk-...`, `AIza...`, `ya29. ...`), and a `Bearer` token, so a key the server echoes that
  is not ours (another tenant's, a proxy's) goes too.

The generic high-entropy rule of `secrets.py` is deliberately not applied here: hashes, request keys and
batch ids are long opaque tokens that must survive. Redaction runs on every event body, so it first looks
for substrings every echo must contain (a secret's first or last characters, a key prefix, "bearer") and
returns a string holding none of them untouched, before any regular expression runs. The environment's
key variables are read on first use (`refresh_secrets` reads them again); keys read later by the
credentials code are registered as they are read.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import traceback
from dataclasses import dataclass
from typing import Any

MASK = "[REDACTED]"
# The providers' usual key variables; a model's own `params.api_key_env` is registered when it is read.
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
# A value shorter than this is not treated as a secret: replacing every "abc" would mangle the evidence.
MIN_SECRET = 8
# At least this many of a secret's first or last characters beside a mask count as an echo of it.
MIN_FRAGMENT = 3

# The key shapes of the providers we call (OpenAI and Anthropic `sk-...`, Google `AIza...` and `ya29.`
# tokens, as secrets.py refuses them at registration), with a mask allowed inside; and a Bearer token,
# long enough and holding a digit, so that "Bearer bonds" stays prose.
_KEY_BODY = r"(?:[A-Za-z0-9_\-*•…]|\.(?=[A-Za-z0-9_\-*•….]))"
_SHAPED = re.compile(r"(?<![A-Za-z0-9_\-])(?:sk-|AIza|ya29\.)" + _KEY_BODY + r"{6,}"
                     r"|(?i:\b(bearer)\s+)(?=[A-Za-z0-9._~+/\-]*[0-9])[A-Za-z0-9._~+/\-]{8,}=*")
# Substrings every shaped match contains: a string holding none of them is left alone at once.
_SHAPE_MARKS = ("sk-", "AIza", "ya29.", "earer", "EARER")
# A masked echo: characters, a run of mask characters, characters (either side may be empty).
_MASKED = re.compile(r"([A-Za-z0-9_\-]*)(\*{3,}|•{2,}|…|\.{3,})([A-Za-z0-9_\-]*)")


@dataclass(frozen=True)
class _Known:
    secrets: tuple[str, ...]  # longest first, so a key that contains another is replaced whole
    marks: tuple[str, ...]  # substrings any echo contains: each secret's first and last characters


_lock = threading.Lock()
_registered: set[str] = set()
_known: _Known | None = None


def register_secret(value: str | None) -> None:
    """Add a credential in use (a key read from the environment) to what every redaction removes."""
    global _known
    if value and len(value.strip()) >= MIN_SECRET:
        with _lock:
            _registered.add(value.strip())
            _known = None


def refresh_secrets() -> None:
    """Read the providers' key variables again (they are read once, on first use)."""
    global _known
    with _lock:
        _known = None


def _current() -> _Known:
    global _known
    known = _known
    if known is None:
        with _lock:
            found = set(_registered)
            found.update(v for v in (os.environ.get(n, "").strip() for n in KEY_VARIABLES) if len(v) >= MIN_SECRET)
            found.update([json.dumps(s)[1:-1] for s in found])  # as it appears inside a JSON string, too
            secrets = tuple(sorted(found, key=len, reverse=True))
            marks = {m for s in secrets for m in (s[:MIN_FRAGMENT], s[-MIN_FRAGMENT:])} | set(_SHAPE_MARKS)
            known = _known = _Known(secrets, tuple(sorted(marks)))
    return known


def secrets_in_use() -> tuple[str, ...]:
    """The registered credentials and the providers' key variables present in the environment."""
    return _current().secrets


def _echoes(secret: str, head: str, tail: str) -> bool:
    """Whether `head` ends with the secret's first characters or `tail` starts with its last ones."""
    for cut in range(len(head) - MIN_FRAGMENT + 1):
        if secret.startswith(head[cut:]):
            return True
    return any(secret.endswith(tail[:end]) for end in range(len(tail), MIN_FRAGMENT - 1, -1))


def _unmask(text: str, secrets: tuple[str, ...]) -> str:
    def replace(match: re.Match[str]) -> str:
        head, tail = match.group(1), match.group(3)
        return MASK if any(_echoes(s, head, tail) for s in secrets) else match.group(0)

    return _MASKED.sub(replace, text)


def _shaped(match: re.Match[str]) -> str:
    return f"{match.group(1)} {MASK}" if match.group(1) else MASK  # keep the word "Bearer": it says what went


def redact(text: str) -> str:
    """`text` with every credential in use (whole or masked) and every credential-shaped value replaced."""
    if not text:
        return text
    known = _current()
    for mark in known.marks:  # the common case: nothing that could be a credential, decided in a few scans
        if mark in text:
            break
    else:
        return text
    for secret in known.secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    if known.secrets:
        text = _unmask(text, known.secrets)
    return _SHAPED.sub(_shaped, text)


def redact_value(value: Any) -> Any:
    """Strings inside dicts, lists and tuples redacted (Dagster metadata, JSON-like payloads)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact_value(v) for v in value)
    return value


def _redacting_factory(previous: Any) -> Any:
    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record: logging.LogRecord = previous(*args, **kwargs)
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if record.args:
            if isinstance(record.args, tuple):
                record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
            elif isinstance(record.args, dict):
                record.args = {k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()}
        if record.exc_info and record.exc_info[0] is not None:
            # Formatters reuse `exc_text` when it is set: the traceback is formatted once, here, redacted.
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
        return record

    factory.lhl_redacting = True  # type: ignore[attr-defined]
    return factory


def install_log_redaction() -> None:
    """Redact the message of every log record this process creates (Dagster's `context.log` included, which
    builds its records through the standard factory), whatever logger or handler it goes to. Idempotent."""
    with _lock:
        current = logging.getLogRecordFactory()
        if not getattr(current, "lhl_redacting", False):
            logging.setLogRecordFactory(_redacting_factory(current))
