"""Hostile input, from a careless server or an intruder: what the CLI records, prints and writes stays inert.

A corpus folder and contract files named to attack whoever reads a report (`xss<img src=x onerror=...>`,
Markdown that splits a table or makes a link, terminal escape sequences that retitle or clear the screen)
are printed as plain text in Markdown and table reports; imports refuse contract ids the corpus does not
hold; a key pasted as a model id is refused without being echoed; redaction covers every form of an echoed
key; files the CLI writes are whole or untouched (a full disk keeps the previous report); and every failure is
one line naming what failed and why, with the traceback in the home's log.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lhl_platform.clause.extraction.task import ExtractTask
from lhl_platform.domain.redaction import MASK, install_log_redaction, redact, register_secret
from lhl_platform.events.integrity import HASH_CACHE, HashCache
from lhl_platform.providers.base import ModelRequest, ModelResponse, safe_complete
from orchestration.cli import main
from orchestration.ui_guard import LoopbackGuard, allowed_hosts
from tests.conftest import write_mini_layout
from tests.helpers import outcome, read_only_mount, write_outcomes

CORPUS_NAME = "xss<img src=x onerror=alert(1)>"
IMG = "<img src=x onerror=alert(21)>"
ESCAPES = "\x1b]0;TITLE\x07\x1b[2J\u009b2J\u202e wiped"  # OSC title, clear screen, C1 CSI, RTL override
MARKDOWN = "a|b*c*_d_[x](javascript:alert(3))"
HOSTILE_IDS = (IMG, ESCAPES, MARKDOWN)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def hostile_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A corpus in CUAD's layout whose folder and contract files carry markup and escape sequences, and
    outcomes of two models imported for three of each contract's 41 clause types (so `rows_complete` fails
    and names the contracts). Built once; each test gets its own copy (`hostile_home`)."""
    base = tmp_path_factory.mktemp("hostile")
    spans = {"Governing Law": ["governed by the laws of Delaware"]}
    root = write_mini_layout(base, [(f"{cid}.pdf", f"{cid}.txt", spans) for cid in HOSTILE_IDS])
    corpus = root.rename(root.with_name(CORPUS_NAME))
    home = base / "home"
    assert main(["--home", str(home), "ingest", "cuad", str(corpus)]) == 0
    for model in ("imp", "imp2"):
        rows = [row for cid in HOSTILE_IDS for row in (
            outcome(model, 1, cid, "Governing Law", "TP", "supported" if model == "imp" else "contradicted"),
            outcome(model, 1, cid, "Document Name", "FN"), outcome(model, 1, cid, "Parties", "TN"))]
        path = write_outcomes(base / f"{model}.csv", rows)
        assert main(["--home", str(home), "import", "outcomes", str(path)]) == 0
    return home


@pytest.fixture
def hostile_home(hostile_template: Path, tmp_path: Path) -> Path:
    """A copy of the hostile home for one test (tests break its warehouse, Dagster storage and events folder)."""
    home = tmp_path / "home"
    shutil.copytree(hostile_template, home, symlinks=True)
    return home


def _inert_markdown(text: str) -> str:
    """The Markdown rendered by a CommonMark renderer (with GFM tables); raises if it holds live markup."""
    markdown_it = pytest.importorskip("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark").enable("table").render(text)
    for live in ("<img", "<script", "<a ", "<em>", "\x1b", "\x07"):
        assert live not in rendered, (live, rendered)
    return html.unescape(rendered)


def test_markdown_reports_print_names_and_ids_as_text(hostile_home, capsys):
    code, out, _ = _cli(capsys, "--home", str(hostile_home), "report", "--format", "md")
    assert code == 0
    shown = _inert_markdown(out)
    assert CORPUS_NAME in shown  # the name is still there, as text
    assert IMG in shown and MARKDOWN in shown  # rows_complete names the contracts
    assert "\\x1b]0;TITLE\\x07\\x1b[2J\\u009b2J\\u202e wiped" in shown
    leaderboard = next(line for line in out.splitlines() if line.startswith("| imp "))
    assert leaderboard.count(" | ") == 12  # 13 cells (model, rank, ...): no pipe of a name split the table

    code, out, _ = _cli(capsys, "--home", str(hostile_home), "compare", "imp", "imp2", "--format", "md",
                        "--resamples", "50")
    assert code == 0 and CORPUS_NAME in _inert_markdown(out)


def test_table_reports_show_control_characters_as_escapes(hostile_home, capsys):
    for args in (("report",), ("compare", "imp", "imp2", "--resamples", "50")):
        code, out, err = _cli(capsys, "--home", str(hostile_home), *args)
        assert code == 0, err
        assert not {"\x1b", "\x07", "\u009b", "\u202e"} & set(out + err)
    assert "\\x1b]0;TITLE\\x07\\x1b[2J\\u009b2J\\u202e wiped" in _cli(capsys, "--home", str(hostile_home), "report")[1]
    # JSON stays exact: what the terminal guard writes for a raw C1 or bidi character is JSON's own escape.
    code, out, _ = _cli(capsys, "--home", str(hostile_home), "report", "--format", "json")
    assert code == 0 and not {"\u009b", "\u202e"} & set(out)
    rows = json.loads(out)["statistics"]["missing_by_contract"]
    assert ESCAPES in {row["contract_id"] for row in rows}


def test_an_import_refuses_contract_ids_the_active_corpus_does_not_hold(hostile_home, tmp_path, capsys):
    rows = [outcome("imp3", 1, IMG, "Governing Law", "TN"), outcome("imp3", 1, "<script>alert(21)</script>",
                                                                    "Governing Law", "TN")]
    path = write_outcomes(tmp_path / "foreign.csv", rows)

    def streams() -> list[str]:  # the readers' hash cache may be written by any read; it is not evidence
        return sorted(p.name for p in (hostile_home / "events").iterdir() if p.name != HASH_CACHE)

    before = streams()
    code, _, err = _cli(capsys, "--home", str(hostile_home), "import", "outcomes", str(path))
    assert code == 1 and err.count("\n") == 1
    assert "row 2" in err and "'<script>alert(21)</script>'" in err and "not in the active corpus" in err
    assert streams() == before  # nothing written


def test_a_key_shaped_model_id_is_refused_without_echoing_it(tmp_path, capsys):
    key = "sk-abc123456789abcdefghij"
    code, _, err = _cli(capsys, "--home", str(tmp_path), "models", "add", "x", "--provider", "openai",
                        "--model-id", key)
    assert code == 1 and "model_id" in err and "credential" in err and key not in err
    assert "x " not in _cli(capsys, "--home", str(tmp_path), "models", "list")[1]
    assert _cli(capsys, "--home", str(tmp_path), "models", "add", "y", "--provider", "openai",
                "--model-id", "gpt-5.2")[0] == 0  # an ordinary id still registers


def test_redaction_covers_every_form_a_server_echoes_and_leaves_evidence_alone():
    key = "sk-proj-Zq81xVuT0mKe7yLwXYZ"
    register_secret(key)
    for echoed in (key, "sk-pro...XYZ", "sk-proj-************XYZ", "****7yLwXYZ", "•••LwXYZ", "sk-proj-…"):
        assert redact(f"401: Incorrect API key provided: {echoed}.") == f"401: Incorrect API key provided: {MASK}."
    assert redact(f"Authorization: Bearer {key}") == f"Authorization: Bearer {MASK}"
    assert redact("a stranger's key sk-other0123456789 and Authorization: Bearer eyJ0eXAi.Jh81.x9") == (
        f"a stranger's key {MASK} and Authorization: Bearer {MASK}")
    for kept in ("Bearer bonds are payable to bearer.", "see section 3...Payment ...", "risk-free task-based",
                 "request 3f2a9c0b7e1d4a5b6c7d8e9f00112233445566778899aabbccddeeff00112233",
                 "msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d", "batches/b1 ****"):
        assert redact(kept) == kept


def test_log_records_are_redacted_tracebacks_included(capsys):
    key = "sk-logged-0123456789abcXYZ"
    register_secret(key)
    install_log_redaction()
    logger = logging.getLogger("lhl-test-redaction")
    handler = logging.StreamHandler()
    logger.addHandler(handler)
    try:
        try:
            raise RuntimeError(f"the server said Bearer {key}")
        except RuntimeError:
            logger.exception("call failed for %s", key)
    finally:
        logger.removeHandler(handler)
    err = capsys.readouterr().err
    assert key not in err and err.count(MASK) == 2 and "RuntimeError" in err


class _Raising:
    """A ChatModel whose SDK raises with the key in its message."""

    provider, model_id = "openai", "gpt-echo"

    def __init__(self, message: str) -> None:
        self.message = message

    def request_params(self) -> dict[str, Any]:
        return {}

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise ValueError(self.message)


def test_safe_complete_redacts_an_exception_that_quotes_the_key():
    key = "sk-raised-0123456789abcXYZ"
    register_secret(key)
    request = ModelRequest(provider="openai", model_id="gpt-echo", prompt_version="v1", run=1, messages=(),
                           task=ExtractTask(contract_id="c", contract_text="t", clause_types=("Parties",)))
    response = asyncio.run(safe_complete(_Raising(f"Incorrect API key provided: {key}"), request))
    assert response.error == f"ValueError: Incorrect API key provided: {MASK}"


def _tmpfs(path: Path, size: str) -> None:
    path.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs (a full disk) needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")


def test_out_on_a_full_disk_keeps_the_previous_file(hostile_home, tmp_path, capsys):
    disk = tmp_path / "disk"
    _tmpfs(disk, "64k")
    try:
        out = disk / "report.md"
        assert _cli(capsys, "--home", str(hostile_home), "report", "--format", "md", "--out", str(out))[0] == 0
        previous = out.read_bytes()
        with (disk / "filler").open("wb", buffering=0) as fh, pytest.raises(OSError):  # fill it to the last block
            while True:
                fh.write(b"\0" * 4096)
                fh.flush()
        code, _, err = _cli(capsys, "--home", str(hostile_home), "report", "--format", "html", "--out", str(out))
        assert code == 1 and err.count("\n") == 1 and str(out) in err and "No space left on device" in err
        assert "previous file is unchanged" in err
        assert out.read_bytes() == previous and sorted(p.name for p in disk.iterdir()) == ["filler", "report.md"]
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_a_home_that_is_a_file_says_it_is_not_a_directory(tmp_path, capsys):
    not_a_folder = tmp_path / "home"
    not_a_folder.write_text("")
    for command in (["verify"], ["report"], ["models", "list"]):
        code, _, err = _cli(capsys, "--home", str(not_a_folder), *command)
        assert code == 1
        assert err == f"lhl: home {not_a_folder} is not a directory (set --home or LHL_HOME to a folder)\n"


def test_library_failures_are_one_line_naming_the_resource_with_the_traceback_in_the_log(hostile_home, capsys):
    # A warehouse build that is not a database is no failure: it is rebuilt from the events, saying so in one line.
    assert _cli(capsys, "--home", str(hostile_home), "report")[0] == 0
    build = next((hostile_home / "warehouse").glob("build-*.duckdb"))
    build.write_bytes(b"not a database")
    code, _, err = _cli(capsys, "--home", str(hostile_home), "report")
    assert code == 0 and err.count("\n") == 1
    assert err.startswith(f"lhl: {build}: not a DuckDB database") and "rebuilding the warehouse from the events" in err

    log = hostile_home / "logs" / "lhl.log"
    assert _cli(capsys, "--home", str(hostile_home), "schedule", "list")[0] == 0  # creates Dagster's storage
    databases = list((hostile_home / "dagster").rglob("*.db"))
    assert databases
    for db in databases:
        db.write_bytes(b"not a database either")
    code, _, err = _cli(capsys, "--home", str(hostile_home), "schedule", "list")
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"lhl: Dagster storage in {hostile_home / 'dagster'}: file is not a database")
    assert f"traceback in {log}" in err
    assert "Traceback (most recent call last)" in log.read_text() and "sqlalchemy" in log.read_text()


def test_an_unwritable_events_folder_fails_the_audit_naming_the_cause(hostile_home, capsys):
    assert _cli(capsys, "--home", str(hostile_home), "models", "add", "lexical", "--provider", "offline",
                "--model-id", "lexical")[0] == 0
    events = hostile_home / "events"
    read_only_mount(events)
    try:
        code, _, err = _cli(capsys, "--home", str(hostile_home), "audit", "--models", "lexical", "--runs", "1")
        last = err.strip().splitlines()[-1]
        assert code == 1 and last.startswith("lhl: audit_partition lexical/run 1 failed: step extractions:")
        assert "Read-only file system" in last and str(events) in last
        # The hash cache cannot be saved on a read-only folder, and saving it must not fail a reader.
        cache = HashCache(events)
        cache._dirty = True
        cache.save()
    finally:
        subprocess.run(["umount", str(events)], check=True)


def test_the_loopback_guard_knows_which_hosts_are_this_server():
    assert allowed_hosts("127.0.0.1", 3000) == {"127.0.0.1:3000", "localhost:3000", "[::1]:3000"}
    assert allowed_hosts("::1", 8080) == {"127.0.0.1:8080", "localhost:8080", "[::1]:8080"}
    assert allowed_hosts("10.0.0.5", 3000) == {"10.0.0.5:3000"}
    guard = LoopbackGuard(lambda *a: None, "127.0.0.1", 3000)  # type: ignore[arg-type,return-value]

    def scope(path: str = "/graphql", method: str = "GET", query: str = "", **headers: str) -> dict[str, Any]:
        return {"type": "http", "path": path, "method": method, "query_string": query.encode(),
                "headers": [(k.lower().replace("_", "-").encode(), v.encode()) for k, v in headers.items()]}

    assert guard.problem(scope(host="127.0.0.1:3000", query="query=%7B+version+%7D")) is None
    assert guard.problem(scope(host="127.0.0.1:3000", query="query=mutation+%7B+x+%7D"))[0] == 403  # type: ignore[index]
    # Two Host headers, one of them ours: refused rather than guessed at.
    two = scope()
    two["headers"] = [(b"host", b"127.0.0.1:3000"), (b"host", b"attacker.example:3000")]
    assert guard.problem(two)[0] == 400  # type: ignore[index]
    assert guard.problem(scope(path="/", host="127.0.0.1:3000", origin="http://127.0.0.1:3000.attacker.example")
                         )[0] == 403  # type: ignore[index]
    assert json.dumps(sorted(guard.origins)) == json.dumps(
        ["http://127.0.0.1:3000", "http://[::1]:3000", "http://localhost:3000"])


def test_an_import_whose_ground_truth_is_not_the_corpus_oracle_says_so_in_one_line(hostile_home, tmp_path, capsys):
    # the mini corpus annotates Governing Law only, so Document Name is absent from its oracle
    rows = [outcome("imp4", 1, IMG, "Document Name", "FN"), outcome("imp4", 1, IMG, "Governing Law", "TP")]
    code, _, err = _cli(capsys, "--home", str(hostile_home), "import", "outcomes",
                        str(write_outcomes(tmp_path / "other-truth.csv", rows)))
    assert code == 0 and err.count("\n") == 1
    assert "1 row(s) give a gt_present the active corpus's oracle does not (first: row 1" in err
    assert "'Document Name'" in err
