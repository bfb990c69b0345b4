"""What the shared store's test modules share: moto's S3 server on loopback, a fresh store (database and prefix) on
the PostgreSQL server of tests/test_publish.py, and an HTTP proxy in front of the S3 server that injects faults.

moto is what s3fs and delta-rs test against too; its server speaks the S3 REST API over HTTP, so boto3 talks to it
as to any S3 endpoint (`AWS_ENDPOINT_URL`).
"""

from __future__ import annotations

import contextlib
import http.client
import http.server
import os
import random
import shutil
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lhl_platform.events.store import CATALOG_URL_ENV, EVENTS_URL_ENV

BUCKET = "lhl-evidence"
AWS_ENV = ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def s3() -> Iterator[str]:
    """moto's S3 server on a free loopback port, with one bucket; its endpoint URL."""
    boto3 = pytest.importorskip("boto3", reason="boto3 is not installed (the dev extra carries it)")
    moto_server = pytest.importorskip("moto.server", reason="moto[server] is not installed (the dev extra carries it)")
    port = free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    with set_env({"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                  "AWS_DEFAULT_REGION": "us-east-1"}):
        boto3.client("s3").create_bucket(Bucket=BUCKET)
        try:
            yield endpoint
        finally:
            server.stop()


def new_store(postgres: tuple[str, str]) -> dict[str, str]:
    """A fresh shared store on the server: its own database and bucket prefix; the environment that attaches it."""
    import psycopg

    host_url, password = postgres
    name = "lhl_" + uuid.uuid4().hex[:12]
    with psycopg.connect(host_url, password=password, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    catalog = host_url.replace("postgresql://lhl@", f"postgresql://lhl:{password}@").rsplit("/", 1)[0] + f"/{name}"
    return {EVENTS_URL_ENV: f"s3://{BUCKET}/{name}", CATALOG_URL_ENV: catalog}


@contextlib.contextmanager
def set_env(values: dict[str, str | None]) -> Iterator[None]:
    """The environment with these variables set (None: unset), restored after."""
    saved = {k: os.environ.get(k) for k in values}
    try:
        for key, value in values.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class FaultyProxy(http.server.ThreadingHTTPServer):
    """Forwards to the S3 server, answering a share (`rate`) of the requests with a 503 or a 500 instead, and
    holding a share (`stall_rate`) of them `stall_s` seconds before it forwards them (past a client's read
    timeout, the client gives up on the request and retries it)."""

    daemon_threads = True

    def __init__(self, upstream: str, rate: float = 0.0, stall_rate: float = 0.0, stall_s: float = 0.0) -> None:
        self.upstream = upstream.removeprefix("http://")
        self.rate, self.stall_rate, self.stall_s = rate, stall_rate, stall_s
        self.faults = self.stalls = 0
        self.random = random.Random(7)
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Forward)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    @contextlib.contextmanager
    def running(self) -> Iterator[FaultyProxy]:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        try:
            yield self
        finally:
            self.shutdown()


class _Forward(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FaultyProxy

    def log_message(self, *args: object) -> None:
        pass

    def _any(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.server.lock:
            draw = self.server.random.random()
            fail = draw < self.server.rate
            stall = not fail and draw < self.server.rate + self.server.stall_rate
            self.server.faults += fail
            self.server.stalls += stall
        if fail:
            status = self.server.random.choice((500, 503))
            error = b"<Error><Code>InternalError</Code><Message>injected</Message></Error>"
            self.send_response(status)
            self.send_header("Content-Length", str(len(error)))
            self.end_headers()
            self.wfile.write(error)
            return
        if stall:  # the request reaches the server late, after its client stopped waiting for it
            time.sleep(self.server.stall_s)
        conn = http.client.HTTPConnection(self.server.upstream, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
        try:
            conn.request(self.command, self.path, body=body, headers={**headers, "Host": self.headers["Host"]})
            reply = conn.getresponse()
            data = reply.read()
        except OSError:  # a stalled request forwarded after the test stopped the server
            conn.close()
            return
        try:
            self.send_response(reply.status)
            for key, value in reply.getheaders():
                if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except OSError:
            pass  # the client gave up on this request (its read timeout)
        conn.close()

    do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _any


def two_step_audit(root: Path, run: Callable[..., object]) -> tuple[Path, Path]:
    """A folder home audited in two steps, outside any shared store: two contracts by one offline model (`first`,
    a copy of the events and corpora at that point), then by a second too (`second`). `run(home, *argv)` runs one
    command."""
    from lhl_platform.corpus.demo import DEMO_DIR

    first, second = root / "first", root / "second"
    with set_env({EVENTS_URL_ENV: None, CATALOG_URL_ENV: None}):
        for argv in (("ingest", "cuad", str(DEMO_DIR)), ("subset", "create", "two", "--size", "2", "--seed", "1"),
                     ("models", "add", "lex", "--provider", "offline", "--model-id", "lexical"),
                     ("audit", "--models", "lex", "--runs", "1", "--subset", "two")):
            run(second, *argv)
        first.mkdir()
        for part in ("events", "corpora"):
            shutil.copytree(second / part, first / part)
        for argv in (("models", "add", "omit", "--provider", "offline", "--model-id", "simulated:omitter"),
                     ("audit", "--models", "omit", "--runs", "1", "--subset", "two")):
            run(second, *argv)
    return first, second
