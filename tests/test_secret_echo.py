"""A key a server echoes back never reaches the evidence, the warehouse, Dagster's storage or the terminal.

A loopback server speaks the three providers' wire formats and echoes the key it was sent, the way many
proxies and some providers do: in 401, 400 and 429 error bodies (whole, after `Bearer `, and masked as
`sk-can...XYZ` and `****XYZ`), in a 200 answer whose text is not JSON, in a 200 answer whose quotes hold it,
and in the messages of the Anthropic and Gemini SDKs' own exceptions. The real `lhl` commands audit against
it; then every byte under the home is searched, and so are the decoded Parquet segments, every SQLite
database (Dagster's storage), every table of the DuckDB warehouse, and the commands' output.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest

from lhl_platform.domain.redaction import MASK
from lhl_platform.domain.taxonomy import CLAUSE_TYPES

ROOT = Path(__file__).resolve().parents[1]
CASES = ("401", "400", "429", "text", "quotes")


def _completion(text: str) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-echo",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text,
                                                                          "refusal": None}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


class EchoServer:
    """Answers each provider's calls with the key it received, in the way the contract's CASE marker says."""

    def __init__(self) -> None:
        self.seen: set[str] = set()  # keys the server received
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length", 0) or 0))
                key = (self.headers.get("authorization", "").removeprefix("Bearer ")
                       or self.headers.get("x-api-key") or self.headers.get("x-goog-api-key") or "")
                outer.seen.add(key)
                status, body, extra = outer.answer(self.path, raw.decode(), key)
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @staticmethod
    def echoes(key: str) -> list[str]:
        """Every form of the key this server writes: the tests look for each of them afterwards."""
        return [key, f"{key[:6]}...{key[-3:]}", f"****{key[-4:]}"]

    def answer(self, path: str, body: str, key: str) -> tuple[int, Any, dict[str, str]]:
        whole, masked, tail = self.echoes(key)
        said = f"Incorrect API key provided: Bearer {whole}. You can find your key ({masked}, {tail}) in settings."
        if path.endswith("/v1/messages"):  # Anthropic: its SDK raises AuthenticationError with this body in it
            return 401, {"type": "error", "error": {"type": "authentication_error", "message": said}}, {}
        if ":generateContent" in path:  # Gemini: its SDK raises ClientError with this body in it
            error = {"code": 400, "message": f"API key not valid. {said}", "status": "INVALID_ARGUMENT"}
            return 400, {"error": error}, {}
        case = re.search(r"CASE-(\w+)", body)
        kind = case.group(1) if case else "401"
        if kind in ("401", "400"):
            return int(kind), {"error": {"message": said, "type": "invalid_request_error", "code": kind}}, {}
        if kind == "429":
            return 429, {"error": {"message": f"Rate limit reached for {whole}", "type": "rate_limit"}}, \
                {"retry-after": "0"}
        if kind == "text":
            return 200, _completion(f"I cannot answer: {said}"), {}
        answer = {"clauses": [{"clause_type": c, "present": c == "Governing Law",
                               "quotes": [f"governed by the laws of Delaware (Bearer {whole})"]
                               if c == "Governing Law" else []} for c in CLAUSE_TYPES]}
        return 200, _completion(json.dumps(answer)), {}

    def __enter__(self) -> EchoServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def _lhl(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "orchestration.cli", *args], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=600, stdin=subprocess.DEVNULL)


def _texts_under(home: Path) -> dict[str, str]:
    """What the home holds, readable: each file's raw bytes, each Parquet file decoded, each SQLite database's
    and the DuckDB warehouse's tables row by row (keyed by where it came from)."""
    found: dict[str, str] = {}
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found[f"bytes {path}"] = data.decode("latin-1")
        if path.suffix == ".parquet":
            found[f"parquet {path}"] = json.dumps(pq.read_table(path).to_pylist(), default=str)
        elif data.startswith(b"SQLite format 3\0"):
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            found[f"sqlite {path}"] = json.dumps({t: con.execute(f'SELECT * FROM "{t}"').fetchall() for t in tables},
                                                 default=repr)
            con.close()
    for warehouse in sorted((home / "warehouse").glob("build-*.duckdb")):  # its Parquet files are read above
        con = duckdb.connect(str(warehouse), read_only=True)
        con.execute(f"set file_search_path = '{home / 'warehouse'}'")
        tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        found[f"duckdb {warehouse}"] = json.dumps({t: con.execute(f'SELECT * FROM "{t}"').fetchall()
                                                   for t in tables}, default=repr)
        con.close()
    assert found.keys() & {f"duckdb {p}" for p in (home / "warehouse").glob("build-*.duckdb")}
    return found


@pytest.fixture
def echo_corpus(mini_layout) -> Path:
    rows = [(f"echo-{case}.pdf", f"echo-{case}.txt",
             {"Governing Law": [f"This Agreement is governed by the laws of Delaware. CASE-{case}"]}) for case in CASES]
    return mini_layout(rows)


def test_a_key_echoed_by_the_server_leaves_no_trace_in_the_home_or_the_output(echo_corpus, tmp_path):
    keys = {"OPENAI_API_KEY": f"sk-canary-{secrets.token_hex(10)}XYZ",
            "ANTHROPIC_API_KEY": f"sk-ant-canary-{secrets.token_hex(10)}",
            "GEMINI_API_KEY": f"AIzaCanary{secrets.token_hex(12)}"}
    env = {k: v for k, v in os.environ.items() if k not in ("GOOGLE_API_KEY", *keys)}
    home = tmp_path / "home"
    fast = json.dumps({"max_retries": 1, "backoff_base_s": 0.01, "backoff_max_s": 0.05, "concurrency": 2})
    outputs: list[str] = []
    with EchoServer() as server:
        steps = [("ingest", "cuad", str(echo_corpus)),
                 ("models", "add", "e-openai", "--provider", "openai", "--model-id", "gpt-echo",
                  "--base-url", f"{server.url}/v1", "--params", fast),
                 ("models", "add", "e-anthropic", "--provider", "anthropic", "--model-id", "claude-echo",
                  "--base-url", server.url, "--params", fast),
                 ("models", "add", "e-gemini", "--provider", "gemini", "--model-id", "gemini-echo",
                  "--base-url", server.url, "--params", fast)]
        for step in steps:
            done = _lhl(env, "--home", str(home), *step)
            assert done.returncode == 0, done.stderr
            outputs += [done.stdout, done.stderr]
        env.update(keys)
        for step in [("audit", "--models", "e-openai,e-anthropic,e-gemini", "--runs", "1"),
                     ("report",), ("report", "--format", "md"), ("report", "--format", "json"), ("verify",)]:
            done = _lhl(env, "--home", str(home), *step)
            outputs += [done.stdout, done.stderr]
            assert done.returncode in (0, 1, 2), done.stderr
    assert set(keys.values()) <= server.seen  # every key was in use: sent to the server, and echoed by it

    stored = _texts_under(home)
    events = "\n".join(text for where, text in stored.items() if where.startswith("parquet") and "/events/" in where)
    # The echoes were recorded, redacted: each kind of answer left its trace, and the chain still verifies.
    assert f"Incorrect API key provided: Bearer {MASK}" in events
    assert f"rate limited (429): Rate limit reached for {MASK}" in events
    assert f"I cannot answer: Incorrect API key provided: Bearer {MASK}" in events  # a 200 answer's raw text
    assert f"governed by the laws of Delaware (Bearer {MASK})" in events  # a 200 answer's quote
    assert "authentication_error" in events and "API key not valid" in events  # the SDKs' exceptions
    assert any(where.startswith("sqlite") for where in stored) and any("dagster" in where for where in stored)
    assert "event log intact" in "".join(outputs)

    forms = [form for key in keys.values() for form in EchoServer.echoes(key)]
    leaks = [(form, where) for where, text in {**stored, **{f"output {i}": o for i, o in enumerate(outputs)}}.items()
             for form in forms if form in text]
    assert leaks == []
