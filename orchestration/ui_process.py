"""Run a long-lived process tree in the foreground (`lhl ui`, `lhl daemon`) and stop all of it on request.

`lhl ui` is not one process: its webserver starts a daemon and code servers, and those start
more. Killing only the process we started leaves the rest running, holding the port. So:

* the child starts in its own session (and so its own process group), which also keeps it away from
  the terminal: a Ctrl-C reaches only `lhl`, which decides what happens;
* SIGTERM, SIGINT and SIGHUP received by `lhl` are forwarded to the child's whole group (SIGHUP as
  SIGTERM), plus any descendant that moved to a group of its own, so every process gets the chance to
  shut down cleanly (Dagster turns SIGTERM into its Ctrl-C handling);
* after `grace_s` whatever is still alive is killed with SIGKILL; a second signal kills at once;
* if the child ends by itself, anything it left behind in its group is stopped the same way.

Our handlers are installed before the child starts. Python-level handlers revert to the default
action across exec, so the child starts with SIGINT and SIGTERM at their defaults even when `lhl`
itself was started with them ignored (a background job of a non-interactive shell ignores SIGINT,
and Dagster maps SIGTERM onto the SIGINT handler, so it would ignore both).

Processes are found with psutil when it is installed, else from /proc, else (no /proc) by probing
the process group and the pids seen earlier.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import IO, Any

GRACE_S = 10.0
POLL_S = 0.1
_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name))

# `dagster dev` is marked as superseded and says so with a SupersessionWarning (a FutureWarning) each
# time it starts. The filter travels in PYTHONWARNINGS, so it applies to the whole tree; it matches
# that message only, and entries already in the user's PYTHONWARNINGS come later and so take precedence.
QUIET_WARNINGS = ("ignore:Function `dev_command` is superseded:FutureWarning",)


def quiet_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment with the known start-up warnings of `dagster dev` filtered out."""
    entries = [*QUIET_WARNINGS, *filter(None, env.get("PYTHONWARNINGS", "").split(","))]
    return {**env, "PYTHONWARNINGS": ",".join(entries)}


def run_process_tree(command: Sequence[str], *, env: Mapping[str, str] | None = None,
                     stdin: int | IO[Any] | None = None, grace_s: float = GRACE_S) -> int:
    """Run `command` until it exits or we are asked to stop; either way leave none of its processes behind.
    Returns the child's exit code, or 0 when a signal asked us to stop."""
    received: list[int] = []

    def on_signal(signo: int, frame: FrameType | None) -> None:
        received.append(signo)

    previous = _install(on_signal)
    try:
        child = subprocess.Popen(list(command), env=None if env is None else dict(env), stdin=stdin,
                                 start_new_session=True)
        while not received:
            try:
                code = child.wait(timeout=POLL_S)
            except subprocess.TimeoutExpired:
                continue
            stop_tree(child, signal.SIGTERM, grace_s, received)  # whatever it left behind
            return code
        first = received[0]
        name = signal.Signals(first).name
        print(f"lhl: {name} received, stopping the process tree (up to {grace_s:g}s)", file=sys.stderr, flush=True)
        stop_tree(child, signal.SIGINT if first == signal.SIGINT else signal.SIGTERM, grace_s, received)
        return 0
    finally:
        _restore(previous)


def stop_tree(child: subprocess.Popen[Any], sig: int, grace_s: float, received: list[int] | None = None) -> None:
    """Send `sig` to the child's process group and its descendants, wait up to `grace_s`, then SIGKILL what
    is left. A signal appended to `received` meanwhile cuts the wait short."""
    group = child.pid  # the child leads its own session, so its group id is its pid
    # Taken before signalling, since exiting parents orphan their children. Each pid is kept with its
    # start time, so that a pid reused by an unrelated process meanwhile is never signalled.
    known = descendants(child.pid) | _identities({child.pid})
    already = len(received) if received is not None else 0
    _signal_all(group, known, sig)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        child.poll()  # reap our own child, so it does not linger as a zombie
        if not _living(group, known):
            break
        if received is not None and len(received) > already:
            break  # asked again: no more patience
        time.sleep(POLL_S)
    left = _living(group, known)
    if left:
        _signal_all(group, left, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=5)


Identity = tuple[int, str]  # a pid and its start time: one process, even if the pid is reused later


def descendants(pid: int) -> set[Identity]:
    """Every living process whose chain of parents leads to `pid`."""
    table = list(_processes())
    children: dict[int, list[Identity]] = {}
    for proc, parent, _group, started in table:
        children.setdefault(parent, []).append((proc, started))
    found: set[Identity] = set()
    pending = [pid]
    while pending:
        for kid in children.get(pending.pop(), []):
            if kid not in found:
                found.add(kid)
                pending.append(kid[0])
    return found


def _identities(pids: set[int]) -> set[Identity]:
    return {(pid, started) for pid, _parent, _group, started in _processes() if pid in pids}


def _processes() -> Iterator[tuple[int, int, int, str]]:
    """(pid, parent pid, process group, start time) of every living process; zombies count as gone."""
    if _has_psutil():
        import psutil

        for proc in psutil.process_iter(["pid", "ppid", "status", "create_time"]):
            with contextlib.suppress(psutil.Error, OSError):
                if proc.info["status"] != psutil.STATUS_ZOMBIE:
                    pid = proc.info["pid"]
                    yield pid, proc.info["ppid"], os.getpgid(pid), str(proc.info["create_time"])
        return
    proc_dir = Path("/proc")
    if not proc_dir.is_dir():
        return
    for entry in proc_dir.iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                # The command name (in parentheses) may contain spaces; the fields after it do not.
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if fields[0] not in ("Z", "X"):
                    yield int(entry.name), int(fields[1]), int(fields[2]), fields[19]


def _living(group: int, known: set[Identity]) -> set[Identity]:
    """The processes of `group` and the `known` processes that are still alive (not zombies)."""
    if _has_psutil() or Path("/proc").is_dir():
        return {(pid, started) for pid, _parent, pgid, started in _processes()
                if pgid == group or (pid, started) in known}
    # Without a process table, probe what we know (start times are unknown here: "").
    alive = {(pid, started) for pid, started in known if _exists(pid)}
    with contextlib.suppress(OSError):
        os.killpg(group, 0)
        alive.add((group, ""))
    return alive


def _signal_all(group: int, processes: set[Identity], sig: int) -> None:
    """Signal the group, and each process outside it: once each, since a second SIGINT or SIGTERM makes
    Dagster abandon its orderly shutdown."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, sig)
    for pid, _started in processes:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.getpgid(pid) != group:
                os.kill(pid, sig)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _has_psutil() -> bool:
    try:
        import psutil  # noqa: F401
    except ImportError:
        return False
    return True


Handler = Any  # what signal.getsignal returns: a callable, SIG_DFL, SIG_IGN or None


def _install(handler: Any) -> dict[int, Handler]:
    if threading.current_thread() is not threading.main_thread():
        return {}  # signal handlers can only be set from the main thread; the default actions then apply
    return {sig: signal.signal(sig, handler) for sig in _STOP_SIGNALS}


def _restore(previous: dict[int, Handler]) -> None:
    for sig, handler in previous.items():
        signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
