"""What a failed provider call means: retry it or not, count it against the circuit breaker, wait how long.

Two kinds of failure reach the retry loop:

* **HTTP errors**, which each SDK reports with its own exception class carrying the status code. The
  provider adapter recognises its SDK's class and hands the status and headers to `http_failure`,
  which applies one interpretation for every provider (429 and 5xx retried, Retry-After honoured).
* **Transport failures**: the request never got a complete answer (the connection was refused, reset
  or closed, the server hung up before replying, the body was cut short, a pipe broke, a connect or
  read timed out). These are recognised here by behaviour, whatever HTTP client the SDK happens to
  send through (httpx, its fork httpx2, aiohttp, requests/urllib3, or the standard library), since an
  SDK may switch clients between releases or by what else is installed, and the exception classes of
  one client are not subclasses of another's. `transport_failure` walks the exception and everything
  chained to it (`__cause__`, `__context__`, the members of an exception group, and the `reason` a
  urllib3 retry error carries) and matches each against, in this order:

  1. the classes of the common HTTP clients, by module and class name (`TRANSPORT_ERRORS`, the one
     table of them; a class counts when it or one of its bases is listed, the most specific entry
     deciding, so an entry of None excludes a subclass such as a certificate failure);
  2. the builtin `ConnectionError` family (reset, aborted, refused, broken pipe) and `TimeoutError`,
     which several clients also inherit from;
  3. any other `OSError` whose errno is a network condition that may pass (`TRANSIENT_ERRNOS`).

  No third-party module is imported: a client that is not installed simply never matches.

Anything else (a bug, a bad request, an authentication error) is not retried.
"""

from __future__ import annotations

import errno
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from enum import StrEnum
from typing import Any


@dataclass(frozen=True)
class Failure:
    retryable: bool
    server_error: bool  # counts towards the circuit breaker
    retry_after: float | None  # the server's minimum wait, when it named one
    message: str


class Transport(StrEnum):
    """What went wrong below HTTP."""

    TIMEOUT = "timed out"
    CONNECTION = "connection failed, closed or reset"
    INCOMPLETE = "response cut off"


_T, _C, _I = Transport.TIMEOUT, Transport.CONNECTION, Transport.INCOMPLETE
_HTTPX_FAMILY: dict[str, Transport | None] = {
    # Covers ConnectTimeout, ReadTimeout, WriteTimeout, PoolTimeout and ConnectError, ReadError,
    # WriteError, CloseError through their bases. ProtocolError is deliberately not listed: only the
    # remote side's violation (typically "server disconnected without sending a response" or an
    # incomplete body) is transient; LocalProtocolError is our own malformed request.
    "TimeoutException": _T, "NetworkError": _C, "RemoteProtocolError": _C,
}

# Module (or module prefix) -> class name -> kind of transport failure; None: not one, even if a base is.
TRANSPORT_ERRORS: dict[str, dict[str, Transport | None]] = {
    "httpx": _HTTPX_FAMILY,
    "httpx2": _HTTPX_FAMILY,
    "httpcore": _HTTPX_FAMILY,
    "httpcore2": _HTTPX_FAMILY,
    "aiohttp": {
        "ServerTimeoutError": _T,  # and its ConnectionTimeoutError, SocketTimeoutError
        "ClientConnectorCertificateError": None, "ServerFingerprintMismatch": None,  # will not pass by retrying
        "ClientConnectionError": _C,  # ClientOSError, ClientConnectorError, ServerDisconnectedError, resets
        "ClientPayloadError": _I,  # the body ended early (ContentLengthError, TransferEncodingError)
    },
    "requests": {
        "ConnectTimeout": _T, "Timeout": _T,
        "SSLError": None,  # a certificate problem; a TLS connection cut short is found in its chain instead
        "ConnectionError": _C,
        "ChunkedEncodingError": _I,
    },
    "urllib3": {
        "NewConnectionError": _C,  # a subclass of ConnectTimeoutError, but usually a refusal
        "TimeoutError": _T,  # ConnectTimeoutError, ReadTimeoutError
        "ResponseNotChunked": None,
        "ProtocolError": _C,  # connection aborted mid-request ("Connection aborted.", resets)
        "IncompleteRead": _I,  # and InvalidChunkLength
    },
    "anyio": {"BrokenResourceError": _C},
    "google.auth": {"TransportError": _C},  # a network failure while refreshing credentials
    "http.client": {"IncompleteRead": _I, "RemoteDisconnected": _C},
    "asyncio": {"IncompleteReadError": _I},
    "ssl": {"SSLEOFError": _C, "SSLZeroReturnError": _C},
    "builtins": {"TimeoutError": _T, "ConnectionError": _C},  # ConnectionResetError, BrokenPipeError, ...
}

TRANSIENT_ERRNOS: dict[int, Transport] = {
    code: kind for name, kind in (
        ("ECONNRESET", _C), ("ECONNABORTED", _C), ("ECONNREFUSED", _C), ("EPIPE", _C), ("ENOTCONN", _C),
        ("ESHUTDOWN", _C), ("ENETDOWN", _C), ("ENETUNREACH", _C), ("ENETRESET", _C), ("EHOSTDOWN", _C),
        ("EHOSTUNREACH", _C), ("ETIMEDOUT", _T))
    if (code := getattr(errno, name, None)) is not None
}


def _table_for(module: str) -> dict[str, Transport | None] | None:
    while module:
        if module in TRANSPORT_ERRORS:
            return TRANSPORT_ERRORS[module]
        module = module.rpartition(".")[0]
    return None


def transport_kind(exc: BaseException) -> Transport | None:
    """The kind of transport failure this one exception is (its chain aside), or None."""
    for cls in type(exc).__mro__:
        table = _table_for(cls.__module__)
        if table is not None and cls.__name__ in table:
            return table[cls.__name__]
    if isinstance(exc, socket.gaierror):  # a name lookup: only "try again later" may pass
        return _C if exc.errno == getattr(socket, "EAI_AGAIN", None) else None
    if isinstance(exc, OSError) and exc.errno is not None:
        return TRANSIENT_ERRNOS.get(exc.errno)
    return None


def exception_chain(exc: BaseException, limit: int = 32) -> Iterator[BaseException]:
    """The exception and, breadth first, everything it was raised from or while handling."""
    seen: set[int] = set()
    pending: list[BaseException] = [exc]
    while pending and len(seen) < limit:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        linked: list[Any] = [current.__cause__, current.__context__, getattr(current, "reason", None)]
        if isinstance(current, BaseExceptionGroup):
            linked.extend(current.exceptions)
        pending.extend(e for e in linked if isinstance(e, BaseException))


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def transport_failure(exc: BaseException) -> Failure | None:
    """A retryable failure when the exception, or one chained to it, is a transport failure; else None."""
    chain = list(exception_chain(exc))
    for link in chain:
        kind = transport_kind(link)
        if kind is not None:
            detail = _describe(link)
            if not str(link).strip():  # some clients raise without a message; name the underlying cause
                cause = next((e for e in chain if str(e).strip() and transport_kind(e) is not None), None)
                if cause is not None:
                    detail += f" ({_describe(cause)})"
            return Failure(True, True, None, f"transport failure, {kind.value}: {detail}")
    return None


def classify(exc: BaseException, sdk: Callable[[Exception], Failure | None]) -> Failure:
    """The one classifier: the SDK's own reading first (HTTP status errors), then transport failures, else
    a failure that retrying will not fix."""
    if isinstance(exc, Exception):
        known = sdk(exc)
        if known is not None:
            return known
    return transport_failure(exc) or Failure(False, False, None, _describe(exc))


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds to wait from a Retry-After (or retry-after-ms) header, when the server sent one."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def http_failure(status: int | None, headers: Any, message: str) -> Failure:
    """The common interpretation of an HTTP error status (None: the SDK says no response arrived)."""
    if status == 429:
        return Failure(True, False, retry_after_seconds(headers), f"rate limited (429): {message}")
    if status is not None and status >= 500:
        return Failure(True, True, retry_after_seconds(headers), f"server error ({status}): {message}")
    if status in (408, 409):
        return Failure(True, False, retry_after_seconds(headers), f"HTTP {status}: {message}")
    if status is None:
        return Failure(True, True, None, f"connection error: {message}")
    return Failure(False, False, None, f"HTTP {status}: {message}")
