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
from collections.abc import Callable, Iterator
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
        self.respond: Callable[[Seen], Reply] | None = None  # when set, the reply to every request is computed
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
                    elif outer.respond is not None:
                        reply = outer.respond(seen)
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


# --- Provider fakes: interactive calls and batch APIs, with token usage and prompt caching ----------------------

EXTRACT_SCHEMA_NAME = "ExtractionOutput"


def default_answer(contract: str) -> dict[str, Any]:
    """A deterministic extraction of a contract: its first line as the document name, the first sentence
    naming a governing law, nothing else. Any fake asked about the same contract answers the same."""
    from lhl_platform.domain.taxonomy import CLAUSE_TYPES

    lines = [ln.strip() for ln in contract.splitlines() if ln.strip()]
    found: dict[str, str] = {}
    if lines:
        found["Document Name"] = lines[0][:200]
    for sentence in contract.replace("\n", " ").split(". "):
        if "governed by" in sentence.lower():
            found["Governing Law"] = sentence.strip()[:400]
            break
    return {"clauses": [{"clause_type": c, "present": c in found, "quotes": [found[c]] if c in found else []}
                        for c in CLAUSE_TYPES]}


def _contract_of(text: str) -> str:
    return text.removeprefix("CONTRACT:\n<<<\n").removesuffix("\n>>>")


def openai_completion(model: str, text: str, prompt_tokens: int, completion_tokens: int,
                      cached_tokens: int | None = None) -> dict[str, Any]:
    """A chat completion as OpenAI's API returns it, with its usage (and the cached share when given)."""
    usage: dict[str, Any] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                             "total_tokens": prompt_tokens + completion_tokens}
    if cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text, "refusal": None}}],
            "usage": usage}


@dataclass
class Served:
    """One answer the fake gave (interactively or inside a batch), with the usage it reported."""

    provider: str
    key: str  # the contract text's SHA-256 prefix, so answers can be matched to contracts
    batch: str | None
    usage: dict[str, int]


class ProviderFake:
    """A loopback server speaking one provider's API the way its SDK expects: interactive calls, and its
    batch API (OpenAI: files + batches; Anthropic: message batches; Gemini: batchGenerateContent with inline
    requests). Every extraction request is answered by `answer(contract text)`, so an interactive and a
    batch audit get the same answers. Usage is reported as the provider does, with prompt caching: the
    instructions (the system prompt) are served from the cache after the first request that carried them
    (Anthropic also reports the contract block, marked with cache_control, as written to the cache).

    Knobs: `fail_in_batch(contract) -> reason | None` fails a request inside a batch; `fail_interactive(contract)
    -> reason | None` answers an interactive call with HTTP 400; `hold` keeps batches in progress until
    cleared; `polls` is how many status reads a batch stays in progress for."""

    def __init__(self, provider: str, answer: Any = default_answer) -> None:
        self.provider = provider
        self.answer = answer
        self.fail_in_batch: Any = lambda contract: None
        self.fail_interactive: Any = lambda contract: None
        self.hold = threading.Event()
        self.polls = 1
        self.lock = threading.Lock()
        self.cached: set[str] = set()  # system prompts the provider has cached
        self.served: list[Served] = []
        self.interactive: list[str] = []  # contract keys answered interactively, in order
        self.batch_creates = 0
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self, method: str) -> None:
                length = int(self.headers.get("content-length", 0) or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    status, body, ctype = outer.route(method, self.path, dict(self.headers.items()), raw)
                except Exception as exc:  # a bug in the fake shows in the client as a 500 with the reason
                    status, ctype = 500, "application/json"
                    body = json.dumps({"error": {"message": repr(exc)}}).encode()
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                self._serve("POST")

            def do_GET(self) -> None:  # noqa: N802
                self._serve("GET")

            def log_message(self, *args: Any) -> None:
                return None

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 128

        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        """What `--base-url` should be for this provider's SDK."""
        return self.url + ("/v1" if self.provider == "openai" else "")

    def __enter__(self) -> ProviderFake:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- answering ---------------------------------------------------------------------------------------

    def _usage(self, system: str, contract: str, output: str) -> dict[str, int]:
        """Tokens at four characters each; the instructions are cached after their first request."""
        sys_t, user_t, out_t = len(system) // 4, (len(contract) + 14) // 4, max(1, len(output) // 4)
        with self.lock:
            hit = system in self.cached
            self.cached.add(system)
        if self.provider == "openai":  # cached in 128-token steps from 1,024 on
            cached = (sys_t // 128) * 128 if hit and sys_t >= 1024 else 0
            return {"prompt_tokens": sys_t + user_t, "completion_tokens": out_t, "cached_tokens": cached}
        if self.provider == "anthropic":  # the system block is read or written; the contract block written
            return {"input_tokens": 0, "cache_read_input_tokens": sys_t if hit else 0,
                    "cache_creation_input_tokens": user_t + (0 if hit else sys_t), "output_tokens": out_t}
        return {"promptTokenCount": sys_t + user_t, "candidatesTokenCount": out_t,
                "cachedContentTokenCount": sys_t if hit else 0}

    def _answer(self, system: str, contract: str, batch: str | None) -> tuple[str, dict[str, int]]:
        text = json.dumps(self.answer(contract))
        usage = self._usage(system, contract, text)
        with self.lock:
            self.served.append(Served(self.provider, key_of(contract), batch, usage))
        return text, usage

    def _openai_completion(self, body: dict[str, Any], batch: str | None) -> dict[str, Any]:
        messages = body["messages"]
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        contract = _contract_of(next(m["content"] for m in messages if m["role"] == "user"))
        text, u = self._answer(system, contract, batch)
        return openai_completion(body["model"], text, u["prompt_tokens"], u["completion_tokens"], u["cached_tokens"])

    def _anthropic_message(self, params: dict[str, Any], batch: str | None) -> dict[str, Any]:
        system = "\n\n".join(b["text"] for b in params.get("system") or [])
        contract = _contract_of(params["messages"][0]["content"][0]["text"])
        text, u = self._answer(system, contract, batch)
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": params["model"],
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "submit_answer", "input": json.loads(text)}],
                "stop_reason": "tool_use", "stop_sequence": None, "usage": u}

    def _gemini_response(self, request: dict[str, Any], batch: str | None) -> dict[str, Any]:
        system = "\n\n".join(p.get("text", "") for p in (request.get("systemInstruction") or {}).get("parts", []))
        contract = _contract_of(request["contents"][0]["parts"][0]["text"])
        text, u = self._answer(system, contract, batch)
        return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
                "usageMetadata": u}

    # --- routes ------------------------------------------------------------------------------------------

    def route(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, str]:
        path = path.split("?", 1)[0]
        js = "application/json"
        if self.provider == "openai":
            return self._openai_route(method, path, headers, raw, js)
        if self.provider == "anthropic":
            return self._anthropic_route(method, path, raw, js)
        return self._gemini_route(method, path, raw, js)

    def _interactive_failure(self, contract: str) -> tuple[int, bytes, str] | None:
        reason = self.fail_interactive(contract)
        if reason is None:
            return None
        with self.lock:
            self.interactive.append(key_of(contract))
        return 400, json.dumps({"error": {"message": reason, "type": "invalid_request_error", "code": 400,
                                          "status": "INVALID_ARGUMENT"}, "type": "error"}).encode(), "application/json"

    def _openai_route(self, method: str, path: str, headers: dict[str, str], raw: bytes,
                      js: str) -> tuple[int, bytes, str]:
        if method == "POST" and path == "/v1/chat/completions":
            body = json.loads(raw)
            contract = _contract_of(next(m["content"] for m in body["messages"] if m["role"] == "user"))
            failed = self._interactive_failure(contract)
            if failed:
                return failed
            with self.lock:
                self.interactive.append(key_of(contract))
            return 200, json.dumps(self._openai_completion(body, None)).encode(), js
        if method == "POST" and path == "/v1/files":
            data = _multipart_file(headers, raw)
            with self.lock:
                file_id = f"file-{len(self.files) + 1}"
                self.files[file_id] = data
            doc = {"id": file_id, "object": "file", "bytes": len(data), "created_at": 0,
                   "filename": "requests.jsonl", "purpose": "batch", "status": "processed"}
            return 200, json.dumps(doc).encode(), js
        if method == "POST" and path == "/v1/batches":
            body = json.loads(raw)
            lines = [json.loads(line) for line in self.files[body["input_file_id"]].splitlines() if line.strip()]
            assert all(line["url"] == body["endpoint"] == "/v1/chat/completions" for line in lines)
            with self.lock:
                self.batch_creates += 1
                batch_id = f"batch_{self.batch_creates}"
                self.batches[batch_id] = {"requests": lines, "polls": 0, "input_file_id": body["input_file_id"]}
            return 200, json.dumps(self._openai_batch(batch_id)).encode(), js
        if method == "GET" and path.startswith("/v1/batches/"):
            batch_id = path.rsplit("/", 1)[1]
            self._poll(batch_id)
            return 200, json.dumps(self._openai_batch(batch_id)).encode(), js
        if method == "GET" and path.startswith("/v1/files/") and path.endswith("/content"):
            return 200, self.files[path.split("/")[3]], "application/octet-stream"
        return 404, json.dumps({"error": {"message": f"no route {method} {path}"}}).encode(), js

    def _poll(self, batch_id: str) -> None:
        with self.lock:
            self.batches[batch_id]["polls"] += 1

    def _ended(self, batch_id: str) -> bool:
        job = self.batches[batch_id]
        return not self.hold.is_set() and job["polls"] > self.polls

    def _results(self, batch_id: str, run: Any) -> list[tuple[str, Any, str | None]]:
        """Each request of an ended batch answered once (when it first ends): (custom id, answer, error)."""
        job = self.batches[batch_id]
        if "results" not in job:
            out = []
            for custom_id, request, contract in run(job):
                reason = self.fail_in_batch(contract)
                out.append((custom_id, None if reason else request(), reason))
            job["results"] = out
        results: list[tuple[str, Any, str | None]] = job["results"]
        return results

    def _openai_batch(self, batch_id: str) -> dict[str, Any]:
        job = self.batches[batch_id]
        n = len(job["requests"])
        doc: dict[str, Any] = {"id": batch_id, "object": "batch", "endpoint": "/v1/chat/completions",
                               "input_file_id": job["input_file_id"], "completion_window": "24h",
                               "created_at": 0, "status": "in_progress",
                               "request_counts": {"total": n, "completed": 0, "failed": 0}}
        if not self._ended(batch_id):
            return doc

        def each(job: dict[str, Any]) -> Iterator[tuple[str, Any, str]]:
            for line in job["requests"]:
                contract = _contract_of(next(m["content"] for m in line["body"]["messages"] if m["role"] == "user"))
                yield line["custom_id"], (lambda body=line["body"]: self._openai_completion(body, batch_id)), contract

        results = self._results(batch_id, each)
        ok = [json.dumps({"id": f"r{i}", "custom_id": cid, "error": None,
                          "response": {"status_code": 200, "request_id": f"q{i}", "body": answer}})
              for i, (cid, answer, reason) in enumerate(results) if reason is None]
        bad = [json.dumps({"id": f"e{i}", "custom_id": cid, "response": None,
                           "error": {"code": "server_error", "message": reason}})
               for i, (cid, answer, reason) in enumerate(results) if reason is not None]
        with self.lock:
            if ok:
                self.files[f"file-out-{batch_id}"] = ("\n".join(ok) + "\n").encode()
            if bad:
                self.files[f"file-err-{batch_id}"] = ("\n".join(bad) + "\n").encode()
        doc.update(status="completed", output_file_id=f"file-out-{batch_id}" if ok else None,
                   error_file_id=f"file-err-{batch_id}" if bad else None,
                   request_counts={"total": n, "completed": len(ok), "failed": len(bad)})
        return doc

    def _anthropic_route(self, method: str, path: str, raw: bytes, js: str) -> tuple[int, bytes, str]:
        if method == "POST" and path == "/v1/messages":
            params = json.loads(raw)
            contract = _contract_of(params["messages"][0]["content"][0]["text"])
            failed = self._interactive_failure(contract)
            if failed:
                return failed
            with self.lock:
                self.interactive.append(key_of(contract))
            return 200, json.dumps(self._anthropic_message(params, None)).encode(), js
        if method == "POST" and path == "/v1/messages/batches":
            requests = json.loads(raw)["requests"]
            with self.lock:
                self.batch_creates += 1
                batch_id = f"msgbatch_{self.batch_creates}"
                self.batches[batch_id] = {"requests": requests, "polls": 0}
            return 200, json.dumps(self._anthropic_batch(batch_id)).encode(), js
        if method == "GET" and path.startswith("/v1/messages/batches/") and path.endswith("/results"):
            batch_id = path.split("/")[4]
            lines = []
            for cid, answer, reason in self.batches[batch_id]["results"]:
                result = ({"type": "succeeded", "message": answer} if reason is None else
                          {"type": "errored", "error": {"type": "error", "request_id": None,
                                                        "error": {"type": "api_error", "message": reason}}})
                lines.append(json.dumps({"custom_id": cid, "result": result}))
            return 200, ("\n".join(lines) + "\n").encode(), "application/binary"
        if method == "GET" and path.startswith("/v1/messages/batches/"):
            batch_id = path.rsplit("/", 1)[1]
            self._poll(batch_id)
            return 200, json.dumps(self._anthropic_batch(batch_id)).encode(), js
        return 404, json.dumps({"type": "error", "error": {"type": "not_found_error",
                                                           "message": f"no route {method} {path}"}}).encode(), js

    def _anthropic_batch(self, batch_id: str) -> dict[str, Any]:
        job = self.batches[batch_id]
        n = len(job["requests"])
        doc: dict[str, Any] = {"id": batch_id, "type": "message_batch", "processing_status": "in_progress",
                               "created_at": "2026-01-01T00:00:00Z", "expires_at": "2026-01-02T00:00:00Z",
                               "ended_at": None, "results_url": None,
                               "request_counts": {"processing": n, "succeeded": 0, "errored": 0, "canceled": 0,
                                                  "expired": 0}}
        if not self._ended(batch_id):
            return doc

        def each(job: dict[str, Any]) -> Iterator[tuple[str, Any, str]]:
            for entry in job["requests"]:
                contract = _contract_of(entry["params"]["messages"][0]["content"][0]["text"])
                yield entry["custom_id"], (lambda p=entry["params"]: self._anthropic_message(p, batch_id)), contract

        results = self._results(batch_id, each)
        failed = sum(reason is not None for _, _, reason in results)
        doc.update(processing_status="ended", ended_at="2026-01-01T01:00:00Z",
                   results_url=f"{self.url}/v1/messages/batches/{batch_id}/results",
                   request_counts={"processing": 0, "succeeded": n - failed, "errored": failed, "canceled": 0,
                                   "expired": 0})
        return doc

    def _gemini_route(self, method: str, path: str, raw: bytes, js: str) -> tuple[int, bytes, str]:
        if method == "POST" and path.endswith(":generateContent"):
            request = json.loads(raw)
            contract = _contract_of(request["contents"][0]["parts"][0]["text"])
            failed = self._interactive_failure(contract)
            if failed:
                return failed
            with self.lock:
                self.interactive.append(key_of(contract))
            return 200, json.dumps(self._gemini_response(request, None)).encode(), js
        if method == "POST" and path.endswith(":batchGenerateContent"):
            batch = json.loads(raw)["batch"]
            requests = batch["inputConfig"]["requests"]["requests"]
            with self.lock:
                self.batch_creates += 1
                batch_id = f"batches/b{self.batch_creates}"
                self.batches[batch_id] = {"requests": requests, "polls": 0}
            return 200, json.dumps(self._gemini_batch(batch_id)).encode(), js
        if method == "GET" and "/batches/" in path:
            batch_id = "batches/" + path.rsplit("/", 1)[1]
            self._poll(batch_id)
            return 200, json.dumps(self._gemini_batch(batch_id)).encode(), js
        return 404, json.dumps({"error": {"code": 404, "message": f"no route {method} {path}",
                                          "status": "NOT_FOUND"}}).encode(), js

    def _gemini_batch(self, batch_id: str) -> dict[str, Any]:
        doc: dict[str, Any] = {"name": batch_id, "metadata": {"name": batch_id, "state": "BATCH_STATE_RUNNING",
                                                              "displayName": "lhl"}}
        if not self._ended(batch_id):
            return doc

        def each(job: dict[str, Any]) -> Iterator[tuple[str, Any, str]]:
            for entry in job["requests"]:
                request = entry["request"]
                contract = _contract_of(request["contents"][0]["parts"][0]["text"])
                yield (json.dumps(entry.get("metadata")), (lambda r=request: self._gemini_response(r, batch_id)),
                       contract)

        responses = []
        for meta, answer, reason in self._results(batch_id, each):
            item: dict[str, Any] = {"metadata": json.loads(meta)}
            if reason is None:
                item["response"] = answer
            else:
                item["error"] = {"code": 500, "message": reason}
            responses.append(item)
        doc["metadata"].update(state="BATCH_STATE_SUCCEEDED",
                               output={"inlinedResponses": {"inlinedResponses": responses}})
        return doc


def key_of(contract: str) -> str:
    import hashlib

    return hashlib.sha256(contract.encode()).hexdigest()[:16]


def _multipart_file(headers: dict[str, str], raw: bytes) -> bytes:
    """The `file` part of a multipart/form-data body."""
    ctype = next(v for k, v in headers.items() if k.lower() == "content-type")
    boundary = ctype.split("boundary=", 1)[1].strip().strip('"').encode()
    for part in raw.split(b"--" + boundary):
        head, _, body = part.partition(b"\r\n\r\n")
        if b'name="file"' in head:
            return body.removesuffix(b"\r\n")
    raise ValueError("no file part in the upload")


# --- A metered OpenAI-compatible server: the cost and spending-limit tests ------------------------------------

# gpt-4o-mini in genai-prices 0.2.3, USD per million tokens (tests/test_price_table.py pins them)
TABLE_MODEL = "gpt-4o-mini"
INPUT_RATE, OUTPUT_RATE = 0.15, 0.6

ROLE_ANSWERS: dict[str, dict[str, Any]] = {
    "SkepticOutput": {"findings": [], "structural_error": False, "claim": "absent", "accepts": True,
                      "rationale": "nothing in the contract fits"},
    "SupporterOutput": {"position": "absent", "concedes": False, "quotes": [], "argument": "no passage fits"},
    "VerifierOutput": {"present": False, "quote": "", "definition_fit": False, "confidence": 0.0,
                       "rationale": "no passage fits"},
    "DebateJudgeOutput": {"present": False, "quotes": [], "rationale": "the debate's consensus"},
}
FREE_TEXT = "Before I answer: which state are you in, and how many employees does the employer have?"


@dataclass(frozen=True)
class MeteredCall:
    messages: str  # the request's messages as canonical JSON (identical for identical requests)
    schema: str | None  # the structured-output schema asked for; None: free text
    prompt_tokens: int
    completion_tokens: int


def metered_tokens(messages: list[dict[str, Any]], schema: str | None,
                   completion_tokens: int | None = None) -> tuple[int, int]:
    """The usage the metered server reports for a request: (prompt tokens, completion tokens)."""
    return (sum(len(m["content"]) for m in messages) // 4,
            completion_tokens or max(1, len(_metered_answer(schema, messages)) // 4))


def bill(messages: list[dict[str, Any]], schema: str | None, completion_tokens: int | None = None) -> float:
    """What the metered server charges for a request, at the table's rates for gpt-4o-mini."""
    prompt, completion = metered_tokens(messages, schema, completion_tokens)
    return (prompt * INPUT_RATE + completion * OUTPUT_RATE) / 1e6


def _metered_answer(schema: str | None, messages: list[dict[str, Any]]) -> str:
    if schema is None:
        return FREE_TEXT
    if schema == EXTRACT_SCHEMA_NAME:
        return json.dumps(default_answer(_contract_of(next(m["content"] for m in messages if m["role"] == "user"))))
    if schema in ROLE_ANSWERS:
        return json.dumps(ROLE_ANSWERS[schema])
    raise ValueError(f"the metered server does not answer {schema}")


class MeteredServer(ScriptedServer):
    """A `ScriptedServer` that answers every task the platform sends through the real OpenAI SDK (an extraction
    with `default_answer`, the debate's roles with canned agreeing answers, free text with a short hedge) and
    reports usage computed from what it was sent: prompt tokens are the characters of the messages over four,
    completion tokens those of the answer over four, or `completion_tokens` when set (a model that writes long
    answers). Each request is kept with the usage it reported, so a test can price what the server says it
    served, independently of the platform."""

    def __init__(self, completion_tokens: int | None = None) -> None:
        super().__init__()
        self.completion_tokens = completion_tokens
        self.served: list[MeteredCall] = []
        self.respond = self._meter

    def _meter(self, seen: Seen) -> Reply:  # called with self.lock held
        body = seen.body
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
        messages = body["messages"]
        prompt, completion = metered_tokens(messages, schema, self.completion_tokens)
        self.served.append(MeteredCall(json.dumps(messages, sort_keys=True), schema, prompt, completion))
        return Reply(200, openai_completion(body["model"], _metered_answer(schema, messages), prompt, completion))

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def spent(self) -> float:
        """What the server says it served, at the table's rates for gpt-4o-mini."""
        with self.lock:
            return sum(s.prompt_tokens * INPUT_RATE + s.completion_tokens * OUTPUT_RATE for s in self.served) / 1e6

    def count(self) -> int:
        with self.lock:
            return len(self.served)
