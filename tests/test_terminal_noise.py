"""What a command prints is about that command, once, in sentences (issue 30): an audit of one suite shows its own
failing checks, each once, and no other suite's; `lhl ui` serves on the port it names or refuses in one line before
anything starts; a line that is not JSON is named with what is wrong with it, as a sentence."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from lhl_platform.home import Home
from lhl_platform.insufficiency.stages import IMPORTS_STREAM as INSUFFICIENCY_IMPORTS
from lhl_platform.scrub.stages import IMPORTS_STREAM as SCRUB_IMPORTS
from lhl_platform.suites import get_suite
from lhl_platform.warehouse.build import read_warehouse
from resources.alerts import Alert, LogHook, echo_alerts

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"


def lhl(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`lhl` as a user runs it: its own process, no terminal, no test harness's logging."""
    return subprocess.run([sys.executable, "-m", "orchestration.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


# lhl ui ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("port", ["99999", "65536", "0", "-1"])
def test_lhl_ui_refuses_a_port_outside_1_to_65535_in_one_line(tmp_path, port):
    home = tmp_path / "home"
    started = time.monotonic()
    done = lhl("--home", str(home), "ui", "--port", port, timeout=60)
    assert done.returncode != 0
    assert done.stderr.splitlines() == [f"lhl: --port {port} is not a TCP port: give a number from 1 to 65535 "
                                        "(default 3000)"]
    assert done.stdout == ""  # no "Dagster UI ... on http://..." for an address it would not serve
    assert not home.exists() and time.monotonic() - started < 30  # nothing started, nothing created


def test_lhl_ui_refuses_a_port_in_use_in_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = lhl("--home", str(tmp_path / "home"), "ui", "--port", str(port), timeout=60)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.splitlines() == [f"lhl: cannot serve on 127.0.0.1:{port}: Address already in use (give "
                                        "another --port)"]


def test_the_guarded_webserver_refuses_a_port_the_os_would_wrap():
    done = subprocess.run([sys.executable, "-m", "orchestration.webserver", "-m", "orchestration.definitions",
                           "-h", "127.0.0.1", "-p", "99999"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "99999 is not a TCP port (1 to 65535)" in done.stderr and "Serving" not in done.stderr + done.stdout


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_lhl_ui_serves_the_address_it_prints(tmp_path):
    port = _free_port()
    log = tmp_path / "ui.log"
    with log.open("w") as out:
        ui = subprocess.Popen([sys.executable, "-m", "orchestration.cli", "--home", str(tmp_path / "home"), "ui",
                               "--port", str(port)], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while "http://" not in log.read_text():
            assert ui.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.2)
        url = log.read_text().split(" on ", 1)[1].split()[0]
        assert url == f"http://127.0.0.1:{port}"
        while True:  # the printed address answers through the guard (its Host is the one the guard expects)
            try:
                with urllib.request.urlopen(f"{url}/server_info", timeout=5) as response:
                    assert response.status == 200 and "dagster_webserver_version" in json.loads(response.read())
                    break
            except OSError:
                if ui.poll() is not None or time.monotonic() > deadline:
                    pytest.skip(f"the Dagster webserver did not come up here:\n{log.read_text()[-1500:]}")
                time.sleep(0.5)
    finally:
        ui.send_signal(signal.SIGTERM)  # lhl stops its whole tree (tests/test_ui_process.py)
        try:
            ui.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(ui.pid, signal.SIGKILL)
            ui.wait()


# alerts after an audit ----------------------------------------------------------------------------------

ALERT = re.compile(r"lhl alert: check (\S+) failed on ([^\[:]+)")


def own_checks(suite_name: str) -> set[tuple[str, str]]:
    """(check, asset) of every check a suite declares: its mart checks and its stages' checks."""
    suite = get_suite(suite_name)
    return {(c.name, c.asset) for c in suite.checks} | {(c.name, s.name) for s in suite.stages for c in s.checks}


def test_the_echo_shows_the_alerts_it_keeps_once_and_every_other_line_of_the_alerts_logger():
    lines: list[str] = []
    own = Alert(check="calls_complete", asset="scrub_missing", partition=None, summary="35 missing call(s)")
    other = Alert(check="comparable_scope", asset="instance_outcomes", partition=None, summary="partial systems")
    with echo_alerts(lambda alert: alert.asset == "scrub_missing", write=lines.append):
        hook = LogHook()
        for alert in (own, other, own, other):
            hook.send(alert)
        hook.logger.error("lhl alert: could not deliver to the webhook (ConnectionRefusedError)")
    assert lines == ["lhl alert: check calls_complete failed on scrub_missing: 35 missing call(s)",
                     "lhl alert: could not deliver to the webhook (ConnectionRefusedError)"]


def test_a_clause_audit_keeps_the_clause_comparable_scope_and_not_insufficiency_s_of_the_same_name(capsys):
    from orchestration.cli.audit import own_alerts

    theirs = next(c for c in get_suite("insufficiency").checks if c.name == "comparable_scope")
    with own_alerts("clause"):
        for asset in (theirs.asset, "instance_outcomes", "instance_outcomes"):
            LogHook().send(Alert(check="comparable_scope", asset=asset, partition=None, summary="partial systems"))
    assert capsys.readouterr().err.splitlines() == [
        "lhl alert: check comparable_scope failed on instance_outcomes: partial systems"]


def test_an_audit_of_contractscrub_prints_its_own_failing_check_once_and_no_clause_alert(tmp_path):
    from orchestration.cli import main

    home = tmp_path / "home"
    # The set-up runs in this process (what it prints is not the subject); the audit runs as its own process.
    # The clause suite fails its checks here: vendor-y lacks the rows of a contract vendor-x covers.
    outcomes = (EXAMPLES / "outcomes.csv").read_text().splitlines()
    partial = [line.replace("vendor-x", "vendor-y", 1) for line in outcomes[1:] if "01_harbor" in line]
    (tmp_path / "two.csv").write_text("\n".join([*outcomes, *partial]) + "\n")
    assert main(["--home", str(home), "import", "outcomes", str(tmp_path / "two.csv")]) == 0
    # ContractScrub fails one of its own: vendor-y answered 1 of the set's 36 calls.
    assert main(["--home", str(home), "ingest", "contractscrub", str(EXAMPLES / "contractscrub_items.jsonl")]) == 0
    first = (EXAMPLES / "findings.jsonl").read_text().splitlines()[0].replace("vendor-x", "vendor-y")
    (tmp_path / "one.jsonl").write_text(first + "\n")
    assert main(["--home", str(home), "import", "findings", str(tmp_path / "one.jsonl")]) == 0
    assert main(["--home", str(home), "models", "add", "scrub-rules", "--provider", "offline",
                 "--model-id", "scrub-rules"]) == 0

    done = lhl("--home", str(home), "audit", "--suite", "contractscrub", "--models", "scrub-rules", "--runs", "1")
    assert done.returncode == 0, done.stderr
    with read_warehouse(Home.resolve(str(home))) as con:
        failing = [check.name for check in get_suite("clause").checks if not check.check(con).passed]
    assert "rows_complete" in failing  # clause-suite alerts were raised in this audit's checks, not its news
    alerts = [ALERT.match(line) for line in done.stderr.splitlines() if line.startswith("lhl alert:")]
    named = [(m.group(1), m.group(2)) for m in alerts if m is not None]
    assert len(named) == len(alerts) and ("calls_complete", "scrub_missing") in named, done.stderr
    assert set(named) <= own_checks("contractscrub"), done.stderr  # no clause-suite alert (nor any other suite's)
    assert len(named) == len(set(named)), done.stderr  # each once


# a line that is not JSON --------------------------------------------------------------------------------

@pytest.mark.parametrize(("command", "example", "stream"), [
    ("responses", "responses.jsonl", INSUFFICIENCY_IMPORTS), ("judgments", "judgments.jsonl", INSUFFICIENCY_IMPORTS),
    ("findings", "findings.jsonl", SCRUB_IMPORTS)])
def test_a_line_that_is_not_json_is_named_in_a_sentence_and_nothing_is_recorded(tmp_path, command, example, stream):
    home = tmp_path / "home"
    if command == "findings":
        assert lhl("--home", str(home), "ingest", "contractscrub",
                   str(EXAMPLES / "contractscrub_items.jsonl")).returncode == 0
    lines = (EXAMPLES / example).read_text().splitlines()
    cut = lines[1][:38]  # the second record cut short inside a string, after a blank line
    bad = tmp_path / "bad.jsonl"
    bad.write_text(f"{lines[0]}\n\n{cut}\n")
    done = lhl("--home", str(home), "import", command, str(bad), timeout=120)
    assert done.returncode != 0 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("lhl: ") and line.endswith(
        f"bad.jsonl: line 3: not valid JSON: unterminated string at column {cut.rindex(chr(34)) + 1}"), line
    assert stream not in Home.resolve(str(home)).events.streams()  # nothing of the file is recorded
