"""Transport failures: recognised by behaviour whatever HTTP client an SDK sends through, and retried.

The load tests point each real SDK at a loopback server that hangs up on about 5% of requests (an
orderly close with no response, a reset, or a body cut off halfway) and check that every one of 200
calls still succeeds, each hang-up costing exactly one extra request. Gemini runs once per HTTP client
the google-genai SDK can be told to use (httpx and httpx2; with aiohttp installed it sends through
aiohttp instead). The classifier tests cover the clients not installed here with look-alike classes:
the classifier matches by module and class name, so a class from the same module with the same name
and bases is what it would see."""

import asyncio
import errno
import socket
import ssl

import httpx
import pytest
import requests
import urllib3.exceptions

from lhl_platform.domain.models import ModelSpec
from lhl_platform.factory import build_model
from lhl_platform.providers.base import close_model
from lhl_platform.providers.llm.failures import Failure, Transport, classify, transport_failure, transport_kind
from tests.fakes import ScriptedServer
from tests.test_llm_providers import ANSWER, FAKES, MODEL_IDS, request

CALLS = 200
DROP_RATE = 0.05
LOAD = {"backoff_base_s": 0.01, "backoff_max_s": 0.2, "max_retries": 6, "timeout_s": 10, "concurrency": 16,
        "breaker_cooldown_s": 0.2}
VARIANTS = [(FAKES[0], None), (FAKES[1], None), (FAKES[2], "httpx2"), (FAKES[2], "httpx")]


@pytest.fixture(scope="module")
def server():
    with ScriptedServer() as srv:
        yield srv


@pytest.mark.parametrize(("fake", "client"), VARIANTS,
                         ids=[f"{f.provider}-{c}" if c else f.provider for f, c in VARIANTS])
def test_dropped_connections_lose_nothing(server, monkeypatch, fake, client):
    for name, value in fake.env.items():
        monkeypatch.setenv(name, value)
    if client:
        monkeypatch.setenv("GOOGLE_GENAI_HTTP_CLIENT", client)
    server.script(default=fake.ok(ANSWER))
    server.drop(DROP_RATE, seed=0)
    spec = ModelSpec(name="m", provider=fake.provider, model_id=MODEL_IDS[fake.provider],
                     base_url=server.url + fake.base, params=LOAD)
    model = build_model(spec)

    async def calls():
        try:
            return await asyncio.gather(*(model.complete(request(spec)) for _ in range(CALLS)))
        finally:
            await close_model(model)

    responses = asyncio.run(calls())
    lost = [r.error for r in responses if r.content != ANSWER]
    assert lost == [], f"{len(lost)} of {CALLS} calls lost, e.g. {lost[0]}"
    dropped = server.dropped
    assert dropped >= 5, "the server should have hung up on some requests"
    assert len(server.requests) == CALLS + dropped  # each hang-up was retried once, nothing else was


def foreign(module: str, name: str, *bases: type[BaseException]) -> type[BaseException]:
    """A class as another HTTP client defines it (same module, name and bases)."""
    return type(name, bases or (Exception,), {"__module__": module})


# aiohttp's exception tree, as far as the classifier is concerned.
_AIO = "aiohttp.client_exceptions"
ClientError = foreign(_AIO, "ClientError")
ClientResponseError = foreign(_AIO, "ClientResponseError", ClientError)
ClientConnectionError = foreign(_AIO, "ClientConnectionError", ClientError)
ClientOSError = foreign(_AIO, "ClientOSError", ClientConnectionError, OSError)
ClientConnectorError = foreign(_AIO, "ClientConnectorError", ClientOSError)
ClientSSLError = foreign(_AIO, "ClientSSLError", ClientConnectorError)
ClientConnectorCertificateError = foreign(_AIO, "ClientConnectorCertificateError", ClientSSLError)
ServerConnectionError = foreign(_AIO, "ServerConnectionError", ClientConnectionError)
ServerDisconnectedError = foreign(_AIO, "ServerDisconnectedError", ServerConnectionError)
ServerTimeoutError = foreign(_AIO, "ServerTimeoutError", ServerConnectionError, TimeoutError)
SocketTimeoutError = foreign(_AIO, "SocketTimeoutError", ServerTimeoutError)
ClientPayloadError = foreign(_AIO, "ClientPayloadError", ClientError)


@pytest.mark.parametrize(("exc", "kind"), [
    # httpx and httpcore (their forks httpx2 and httpcore2 are covered by the load tests)
    (httpx.RemoteProtocolError("Server disconnected without sending a response."), Transport.CONNECTION),
    (httpx.ReadError(""), Transport.CONNECTION),
    (httpx.ConnectError("refused"), Transport.CONNECTION),
    (httpx.ReadTimeout("read"), Transport.TIMEOUT),
    (httpx.PoolTimeout("pool"), Transport.TIMEOUT),
    # aiohttp
    (ServerDisconnectedError("Server disconnected"), Transport.CONNECTION),
    (ClientOSError(errno.ECONNRESET, "Connection reset by peer"), Transport.CONNECTION),
    (ClientConnectorError("cannot connect"), Transport.CONNECTION),
    (SocketTimeoutError("Timeout on reading data from socket"), Transport.TIMEOUT),
    (ClientPayloadError("Response payload is not completed"), Transport.INCOMPLETE),
    # requests and urllib3
    (requests.ConnectionError("Connection aborted."), Transport.CONNECTION),
    (requests.ConnectTimeout("connect"), Transport.TIMEOUT),
    (requests.ReadTimeout("read"), Transport.TIMEOUT),
    (requests.exceptions.ChunkedEncodingError("Connection broken: IncompleteRead"), Transport.INCOMPLETE),
    (urllib3.exceptions.ProtocolError("Connection aborted."), Transport.CONNECTION),
    (urllib3.exceptions.ReadTimeoutError(None, "/", "read timed out"), Transport.TIMEOUT),
    (urllib3.exceptions.NewConnectionError(None, "refused"), Transport.CONNECTION),
    (urllib3.exceptions.IncompleteRead(10, 20), Transport.INCOMPLETE),
    # the standard library
    (ConnectionResetError(errno.ECONNRESET, "Connection reset by peer"), Transport.CONNECTION),
    (BrokenPipeError(errno.EPIPE, "Broken pipe"), Transport.CONNECTION),
    (ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"), Transport.CONNECTION),
    (TimeoutError("timed out"), Transport.TIMEOUT),
    (OSError(errno.ENETUNREACH, "Network is unreachable"), Transport.CONNECTION),
    (OSError(errno.ETIMEDOUT, "Connection timed out"), Transport.TIMEOUT),
    (asyncio.IncompleteReadError(b"partial", 100), Transport.INCOMPLETE),
    (ssl.SSLEOFError(8, "EOF occurred in violation of protocol"), Transport.CONNECTION),
    (socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"), Transport.CONNECTION),
], ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v))
def test_transport_failures_of_every_client_are_recognised(exc, kind):
    assert transport_kind(exc) is kind
    failure = transport_failure(exc)
    assert failure is not None and failure.retryable and kind.value in failure.message


@pytest.mark.parametrize("exc", [
    ValueError("bad value"),
    KeyError("choices"),
    httpx.LocalProtocolError("our own malformed request"),
    httpx.UnsupportedProtocol("ftp://"),
    ClientResponseError("404"),
    ClientConnectorCertificateError("certificate verify failed"),
    requests.HTTPError("404 Client Error"),  # an OSError without an errno
    requests.exceptions.SSLError("certificate verify failed"),
    ssl.SSLCertVerificationError(1, "certificate verify failed"),
    OSError(errno.ENOENT, "No such file or directory"),
    socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
], ids=lambda e: type(e).__name__)
def test_other_errors_are_not_transport_failures(exc):
    assert transport_failure(exc) is None
    assert classify(exc, lambda _: None).retryable is False


def test_the_chain_is_walked():
    sdk_error = type("APIConnectionError", (Exception,), {"__module__": "some_sdk"})
    try:  # an SDK wrapping the client's error: raise ... from ...
        try:
            raise ConnectionResetError(errno.ECONNRESET, "Connection reset by peer")
        except ConnectionResetError as reset:
            raise httpx.ReadError("") from reset
    except httpx.ReadError as read:
        wrapped = sdk_error("Connection error.")
        wrapped.__cause__ = read
    failure = transport_failure(wrapped)
    assert failure is not None and failure.retryable
    assert "ReadError (ConnectionResetError: [Errno 104] Connection reset by peer)" in failure.message

    try:  # raised while handling a server disconnect, without `from`
        try:
            raise ServerDisconnectedError("Server disconnected")
        except ServerDisconnectedError:
            raise RuntimeError("session closed") from None
    except RuntimeError as late:
        assert transport_kind(late) is None and transport_failure(late) is not None

    retries = urllib3.exceptions.MaxRetryError(None, "/", reason=urllib3.exceptions.ProtocolError("aborted"))
    assert transport_failure(retries) is not None  # the failure a urllib3 retry error gives as its reason
    group = ExceptionGroup("task group", [ValueError("x"), BrokenPipeError(errno.EPIPE, "Broken pipe")])
    assert transport_failure(group) is not None


def test_the_sdk_reading_comes_first():
    limited = Failure(True, False, 2.0, "rate limited (429): slow down")
    assert classify(httpx.ReadError(""), lambda _: limited) is limited
    assert classify(httpx.ReadError(""), lambda _: None).message.startswith("transport failure")
