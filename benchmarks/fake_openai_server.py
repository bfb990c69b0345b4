"""A minimal asyncio OpenAI-compatible server for benchmarks: fixed latency, optional failure share.

Runs in its own process so that its work does not share the client's interpreter lock.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
from multiprocessing import Process

from lhl_platform.domain.taxonomy import CLAUSE_TYPES

ANSWER = json.dumps({"clauses": [{"clause_type": c, "present": False, "quotes": []} for c in CLAUSE_TYPES]})
MESSAGE = {"role": "assistant", "content": ANSWER}
BODY = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "bench",
                   "choices": [{"index": 0, "finish_reason": "stop", "message": MESSAGE}],
                   "usage": {"prompt_tokens": 500, "completion_tokens": 400, "total_tokens": 900}}).encode()
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

    async def reply(writer: asyncio.StreamWriter, started: float) -> None:
        # Latency counts from the request's arrival, so the fake's own parsing does not add to it.
        await asyncio.sleep(max(0.0, latency - (loop.time() - started)))
        roll = rng.random()
        writer.write(limited if roll < failure_share / 2 else broken if roll < failure_share else ok)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                started = loop.time()
                at = head.lower().find(b"content-length:")
                length = int(head[at + 15: head.find(b"\r\n", at)]) if at >= 0 else 0
                await reader.readexactly(length)
                await reply(writer, started)
        except (asyncio.IncompleteReadError, ConnectionResetError):
            writer.close()

    loop = asyncio.get_running_loop()
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


