"""`lhl ui` stops its whole process tree on SIGTERM or SIGINT, also when started without a terminal.

The first tests run the process-tree runner on a small stand-in tree (a stubborn child that ignores
SIGTERM and SIGINT, a grandchild that moved to a session of its own), so they take seconds. The last
one starts the real `lhl ui` (the guarded webserver, a daemon, code servers) the way a service manager
would: no terminal, stdin from /dev/null, a session of its own."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

TREE = textwrap.dedent("""
    import signal, subprocess, sys, time
    stubborn = subprocess.Popen([sys.executable, "-c", "import signal, time; "
                                 "signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                                 "signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(600)"])
    detached = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    with open(sys.argv[1], "w") as out:
        out.write(f"{stubborn.pid} {detached.pid}")
    if sys.argv[2] == "exit":
        sys.exit(3)
    time.sleep(600)
""")

RUNNER = textwrap.dedent("""
    import sys
    from orchestration.ui_process import run_process_tree
    sys.exit(run_process_tree([sys.executable, "-c", sys.argv[1], sys.argv[2], sys.argv[3]], grace_s=1.0))
""")


def processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state) of every process, from psutil when installed, else from /proc."""
    try:
        import psutil
    except ImportError:
        psutil = None
    table: dict[int, tuple[int, str]] = {}
    if psutil is not None:
        for proc in psutil.process_iter(["pid", "ppid", "status"]):
            table[proc.info["pid"]] = (proc.info["ppid"], "Z" if proc.info["status"] == psutil.STATUS_ZOMBIE else "R")
        return table
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            table[int(entry.name)] = (int(fields[1]), fields[0])
    return table


def descendants_of(pid: int) -> set[int]:
    table = processes()
    found, pending = set(), [pid]
    while pending:
        parent = pending.pop()
        for child, (ppid, _state) in table.items():
            if ppid == parent and child not in found:
                found.add(child)
                pending.append(child)
    return found


def living(pids: set[int]) -> set[int]:
    table = processes()
    return {pid for pid in pids if pid in table and table[pid][1] not in ("Z", "X")}


def wait_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def started_at(pid: int) -> str | None:
    """When the process started (to tell it from a later process that got the same pid), or None."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        try:
            import psutil

            return str(psutil.Process(pid).create_time())
        except Exception:
            return None


def identify(pids: set[int]) -> dict[int, str | None]:
    return {pid: started_at(pid) for pid in pids}


def kill_all(ours: dict[int, str | None]) -> None:
    """SIGKILL what is left of the processes this test started, and nothing that reused their pids."""
    for pid, start in ours.items():
        if start is not None and started_at(pid) == start:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def _has_psutil() -> bool:
    try:
        import psutil  # noqa: F401
    except ImportError:
        return False
    return True


needs_proc = pytest.mark.skipif(not Path("/proc").is_dir() and not _has_psutil(),
                                reason="needs /proc or psutil to see the process tree")


def start_runner(tmp_path: Path, mode: str, *,
                 ignore_sigint: bool = False) -> tuple[subprocess.Popen[bytes], list[int]]:
    """The runner around the stand-in tree; the pids of its stubborn child and its detached grandchild."""
    pids_file = tmp_path / "pids"

    def detach_like_a_background_job() -> None:
        if ignore_sigint:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    runner = subprocess.Popen([sys.executable, "-c", RUNNER, TREE, str(pids_file), mode], cwd=ROOT,
                              stdin=subprocess.DEVNULL, start_new_session=True,
                              preexec_fn=detach_like_a_background_job)
    assert wait_until(lambda: pids_file.exists() and pids_file.read_text().strip(), 20), "the tree did not start"
    return runner, [int(p) for p in pids_file.read_text().split()]


@needs_proc
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_the_whole_tree_even_processes_that_ignore_it(tmp_path, sig):
    runner, pids = start_runner(tmp_path, "stay", ignore_sigint=True)  # as a background job: SIGINT ignored
    tree = descendants_of(runner.pid) | set(pids)
    ours = identify(tree | {runner.pid})
    try:
        assert len(tree) >= 3
        runner.send_signal(sig)
        assert runner.wait(timeout=10) == 0
        assert wait_until(lambda: not living(tree), 5), f"left running: {living(tree)}"
    finally:
        kill_all(ours)


@needs_proc
def test_what_an_exiting_child_leaves_behind_is_stopped(tmp_path):
    runner, pids = start_runner(tmp_path, "exit")
    ours = identify({*pids, runner.pid})
    stubborn, _detached = pids
    try:
        assert runner.wait(timeout=10) == 3  # the child's own exit code
        # Its group is stopped. (A process that also left the group is out of reach once its parent has
        # gone: nothing links it to the tree any more.)
        assert wait_until(lambda: not living({stubborn}), 5), "the orphan in the group was left running"
    finally:
        kill_all(ours)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as response:
            return bool(response.status < 500)
    except OSError:
        return False


def port_is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return not answers(port)


@needs_proc
def test_lhl_ui_stops_its_whole_process_tree_on_sigterm(tmp_path):
    port = free_port()
    lhl = Path(sys.executable).with_name("lhl")
    command = [str(lhl)] if lhl.exists() else [sys.executable, "-m", "orchestration.cli"]
    log_path = tmp_path / "ui.log"
    with log_path.open("wb") as log:
        ui = subprocess.Popen([*command, "ui", "--home", str(tmp_path / "home"), "--port", str(port)], cwd=ROOT,
                              stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    tree: set[int] = set()
    ours = identify({ui.pid})
    try:
        deadline = time.monotonic() + 90
        while not answers(port):
            if ui.poll() is not None or time.monotonic() > deadline:
                tail = log_path.read_text(errors="replace")[-1500:]
                pytest.skip(f"the Dagster webserver did not come up here (lhl exit code {ui.poll()}):\n{tail}")
            time.sleep(0.5)
        tree = descendants_of(ui.pid)
        ours = identify(tree | {ui.pid})  # recorded before the signal: the tree's parents change as it exits
        assert len(tree) >= 3, "expected the webserver with its daemon and code servers"

        started = time.monotonic()
        ui.send_signal(signal.SIGTERM)
        ui.wait(timeout=15)
        assert wait_until(lambda: not living(tree), max(0.5, 15 - (time.monotonic() - started))), (
            f"left running: {living(tree)}")
        assert wait_until(lambda: port_is_free(port), 3), f"port {port} still in use"
        print(f"lhl ui: {len(tree)} processes stopped {time.monotonic() - started:.1f}s after SIGTERM")
        log = log_path.read_text(errors="replace")
        assert "SupersessionWarning" not in log
    finally:
        kill_all(ours)
