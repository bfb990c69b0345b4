"""A minimal asyncio OpenAI-compatible server for benchmarks: fixed latency, optional failure share.

Every answer is rendered once at start-up (one chat completion naming a few clause types present, with
token usage that includes cached prompt tokens), so the server does no work per request beyond reading
it and, `latency` seconds after it arrived, writing the prepared bytes: what is measured is the client.
It runs in its own process so that its work does not share the client's interpreter lock, and it keeps a
tally that `GET /stats` returns: requests answered, the time the first one arrived and the time the last
answer was written (CLOCK_MONOTONIC, comparable across processes on one machine).
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import time
import urllib.request
from multiprocessing import Process
from typing import Any

from lhl_platform.domain.taxonomy import CLAUSE_TYPES

# Quotes for a few clause types most CUAD contracts have, so the audit's judge has true positives to judge.
PRESENT = {
    "Document Name": "MASTER SERVICES AGREEMENT",
    "Parties": "This Agreement is entered into by and between the Company and the Supplier.",
    "Governing Law": "This Agreement shall be governed by the laws of the State of New York.",
}
ANSWER = json.dumps({"clauses": [{"clause_type": c, "present": c in PRESENT, "quotes": [PRESENT[c]] if c in PRESENT
                                  else []} for c in CLAUSE_TYPES]})
PROMPT_TOKENS, CACHED_TOKENS, COMPLETION_TOKENS = 14_000, 1_792, 900
BODY = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "bench",
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": ANSWER}}],
                   "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS,
                             "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
                             "prompt_tokens_details": {"cached_tokens": CACHED_TOKENS}}}).encode()
FAIL_429 = json.dumps({"error": {"message": "rate limited", "type": "rate_limit"}}).encode()
FAIL_500 = json.dumps({"error": {"message": "internal error", "type": "server_error"}}).encode()


def _response(status: int, body: bytes, extra: str = "") -> bytes:
    reason = {200: "OK", 429: "Too Many Requests", 500: "Internal Server Error"}[status]
    head = (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            f"{extra}connection: keep-alive\r\n\r\n")
    return head.encode() + body


async def _serve(sock: socket.socket, latency: float, failure_share: float, seed: int) -> None:
    rng = random.Random(seed)
    ok = _response(200, BODY)
    limited = _response(429, FAIL_429, "retry-after: 0.05\r\n")
    broken = _response(500, FAIL_500)
    tally: dict[str, Any] = {"requests": 0, "answered": 0, "failed": 0, "first": None, "last": None}

    async def reply(writer: asyncio.StreamWriter, started: float) -> None:
        # Latency counts from the request's arrival, so the fake's own reading does not add to it.
        await asyncio.sleep(max(0.0, latency - (time.monotonic() - started)))
        roll = rng.random()
        failed = roll < failure_share
        writer.write(limited if roll < failure_share / 2 else broken if failed else ok)
        tally["failed" if failed else "answered"] += 1
        tally["last"] = time.monotonic()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                started = time.monotonic()
                if head.startswith(b"GET /stats"):
                    body = json.dumps(tally).encode()
                    writer.write(_response(200, body))
                    continue
                if head.startswith(b"POST /reset"):
                    tally.update(requests=0, answered=0, failed=0, first=None, last=None)
                    writer.write(_response(200, b"{}"))
                    continue
                tally["requests"] += 1
                if tally["first"] is None:
                    tally["first"] = started
                at = head.lower().find(b"content-length:")
                length = int(head[at + 15: head.find(b"\r\n", at)]) if at >= 0 else 0
                await reader.readexactly(length)
                await reply(writer, started)
        except (asyncio.IncompleteReadError, ConnectionResetError):
            writer.close()

    server = await asyncio.start_server(handle, sock=sock, backlog=512)
    async with server:
        await server.serve_forever()


def _run(sock: socket.socket, latency: float, failure_share: float, seed: int) -> None:
    try:  # the fake should add as little latency of its own as it can
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    asyncio.run(_serve(sock, latency, failure_share, seed))


def start(latency: float = 0.05, failure_share: float = 0.0, seed: int = 0) -> tuple[Process, str]:
    """Start the server in a child process; returns it and its base URL (127.0.0.1 only)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(512)
    process = Process(target=_run, args=(sock, latency, failure_share, seed), daemon=True)
    process.start()
    return process, f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def stats(base_url: str, reset: bool = False) -> dict[str, Any]:
    """The server's tally (see the module docstring); `reset` clears it afterwards."""
    root = base_url.removesuffix("/v1")
    with urllib.request.urlopen(f"{root}/stats", timeout=10) as response:
        tally: dict[str, Any] = json.loads(response.read())
    if reset:
        request = urllib.request.Request(f"{root}/reset", data=b"", method="POST")
        with urllib.request.urlopen(request, timeout=10):
            pass
    return tally
