"""A loopback OpenAI-compatible server that meters what it serves, for the cost and spending-limit tests.

It answers every task the platform sends through the real OpenAI SDK (an extraction with the deterministic answer
of `tests.fakes`, the debate's roles with canned agreeing answers, free text with a short hedge) and reports usage
computed from what it was sent: prompt tokens are the characters of the messages over four, completion tokens those
of the answer over four, or `completion_tokens` when set (a model that writes long answers). Each request is kept
with the usage it reported, so a test can price what the server says it served, independently of the platform.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes import default_answer

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
class Served:
    messages: str  # the request's messages as canonical JSON (identical for identical requests)
    schema: str | None  # the structured-output schema asked for; None: free text
    prompt_tokens: int
    completion_tokens: int


def tokens(messages: list[dict[str, Any]], schema: str | None, completion_tokens: int | None = None) -> tuple[int, int]:
    """The usage the server reports for a request: (prompt tokens, completion tokens)."""
    return (sum(len(m["content"]) for m in messages) // 4,
            completion_tokens or max(1, len(_answer(schema, messages)) // 4))


def bill(messages: list[dict[str, Any]], schema: str | None, completion_tokens: int | None = None) -> float:
    """What the server charges for a request, at the table's rates for gpt-4o-mini."""
    prompt, completion = tokens(messages, schema, completion_tokens)
    return (prompt * INPUT_RATE + completion * OUTPUT_RATE) / 1e6


def _answer(schema: str | None, messages: list[dict[str, Any]]) -> str:
    if schema is None:
        return FREE_TEXT
    if schema == "ExtractionOutput":
        user = next(m["content"] for m in messages if m["role"] == "user")
        return json.dumps(default_answer(user.removeprefix("CONTRACT:\n<<<\n").removesuffix("\n>>>")))
    if schema in ROLE_ANSWERS:
        return json.dumps(ROLE_ANSWERS[schema])
    raise ValueError(f"the metered server does not answer {schema}")


class MeteredServer:
    def __init__(self, completion_tokens: int | None = None) -> None:
        self.completion_tokens = completion_tokens
        self.served: list[Served] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                schema = (body.get("response_format") or {}).get("json_schema", {}).get("name")
                messages = body["messages"]
                text = _answer(schema, messages)
                prompt, completion = tokens(messages, schema, outer.completion_tokens)
                with outer.lock:
                    outer.served.append(Served(json.dumps(messages, sort_keys=True), schema, prompt, completion))
                reply = json.dumps({
                    "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text, "refusal": None}}],
                    "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                              "total_tokens": prompt + completion}}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                return None

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 128

        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def spent(self) -> float:
        """What the server says it served, at the table's rates for gpt-4o-mini."""
        with self.lock:
            return sum(s.prompt_tokens * INPUT_RATE + s.completion_tokens * OUTPUT_RATE for s in self.served) / 1e6

    def count(self) -> int:
        with self.lock:
            return len(self.served)

    def __enter__(self) -> MeteredServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
