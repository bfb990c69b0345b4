"""A loopback HTTP server that plays scripted responses and records requests (the providers' SDKs talk
to it for real, through their own HTTP stack)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any


class ScriptedServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.default: Reply | None = None
        self.requests: list[Seen] = []
        self.lock = threading.Lock()
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
                    outer.requests.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    reply = outer.replies.pop(0) if outer.replies else outer.default
                if reply is None:
                    reply = Reply(500, {"error": {"message": "no scripted reply"}})
                if reply.delay:
                    time.sleep(reply.delay)
                payload = (json.dumps(reply.body) if not isinstance(reply.body, str) else reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
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

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
