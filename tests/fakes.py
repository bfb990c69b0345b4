"""A loopback HTTP server that plays scripted responses and records requests (the providers' SDKs talk
to it for real, through their own HTTP stack).

Besides answering, the server can misbehave at the transport level the way real networks and load
balancers do: a reply with `drop` set (or a random share of requests, see `ScriptedServer.drop`)
reads the request and then hangs up: `"close"` closes the connection in an orderly way without a
response (the client sees the server disconnect), `"reset"` aborts it (the client sees a connection
reset), and `"partial"` sends the status line, the headers and half the announced body before closing
(the client sees an incomplete read)."""

from __future__ import annotations

import contextlib
import json
import random
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

DropMode = Literal["close", "reset", "partial"]


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: DropMode | None = None  # hang up instead of answering


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any
    dropped: bool = False
    arrived: float = field(default_factory=time.monotonic)
    answered: float | None = None  # when the whole response was written (time.monotonic)


class ScriptedServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.default: Reply | None = None
        self.requests: list[Seen] = []
        self.lock = threading.Lock()
        self.drop_rate = 0.0
        self.drop_modes: tuple[DropMode, ...] = ("close",)
        self.drop_rng = random.Random(0)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode(errors="replace")
                with outer.lock:
                    seen = Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    outer.requests.append(seen)
                    # A random drop does not use up a scripted reply: the retried request gets it.
                    if outer.drop_rate and outer.drop_rng.random() < outer.drop_rate:
                        due = outer.replies[0] if outer.replies else outer.default
                        reply: Reply | None = Reply(body=due.body if due else None,
                                                    drop=outer.drop_rng.choice(outer.drop_modes))
                    else:
                        reply = outer.replies.pop(0) if outer.replies else outer.default
                if reply is None:
                    reply = Reply(500, {"error": {"message": "no scripted reply"}})
                if reply.delay:
                    time.sleep(reply.delay)
                payload = (json.dumps(reply.body) if not isinstance(reply.body, str) else reply.body).encode()
                if reply.drop:
                    seen.dropped = True
                    self.hang_up(reply.drop, payload)
                    return
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                    self.wfile.flush()
                    seen.answered = time.monotonic()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def hang_up(self, mode: DropMode, payload: bytes) -> None:
                """End the connection without a (complete) response."""
                self.close_connection = True
                if mode == "partial":
                    with contextlib.suppress(OSError):
                        self.send_response(200)
                        self.send_header("content-type", "application/json")
                        self.send_header("content-length", str(max(len(payload), 2)))
                        self.end_headers()
                        self.wfile.write(payload[: len(payload) // 2])
                        self.connection.shutdown(socket.SHUT_RDWR)
                elif mode == "reset":
                    # Linger on with a zero timeout makes close() abort the connection with a reset.
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()  # the real close happens once the handler's files are closed
                else:
                    with contextlib.suppress(OSError):
                        self.connection.shutdown(socket.SHUT_RDWR)

            def log_message(self, *args: Any) -> None:
                return None

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 128  # bursts of concurrent connections from the load tests

            def handle_error(self, request: Any, client_address: Any) -> None:
                if isinstance(sys.exc_info()[1], OSError):
                    return  # a hung-up or abandoned connection is expected here, not a test failure
                super().handle_error(request, client_address)

        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *replies: Reply, default: Reply | None = None) -> None:
        with self.lock:
            self.replies = list(replies)
            self.default = default
            self.requests.clear()
            self.drop_rate = 0.0

    def drop(self, rate: float, *modes: DropMode, seed: int = 0) -> None:
        """From now on (until the next `script`), hang up on about `rate` of all requests, in one of `modes`
        (chosen at random; all three when none is named)."""
        with self.lock:
            self.drop_rate = rate
            self.drop_modes = modes or ("close", "reset", "partial")
            self.drop_rng = random.Random(seed)

    @property
    def dropped(self) -> int:
        with self.lock:
            return sum(seen.dropped for seen in self.requests)

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
