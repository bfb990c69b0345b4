"""The demo home one xdist run shares (conftest's `demo_home`): built once, under a file lock in the run's root, by
whichever asks first: a worker's first test that needs it, or the builder the controller starts in the background
when the whole suite runs (`python -m tests.shared_demo <run root>`), so that no worker sits idle for the demo's
minute and more while the other builds it."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path


def shared_demo_home(run_root: Path, main: Callable[[list[str]], int] | None = None) -> Path | None:
    """The demo home of this test run, built once by whichever process takes the lock first; None if that failed."""
    import fcntl

    home, done, failed = run_root / "shared-demo-home", run_root / "shared-demo-home.done", \
        run_root / "shared-demo-home.failed"
    with (run_root / "shared-demo-home.lock").open("a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes: the others wait for the build here
        if done.exists():
            return home
        if failed.exists():
            return None
        if main is None:
            from orchestration.cli import main
        shutil.rmtree(home, ignore_errors=True)  # a builder killed mid-build leaves neither marker, and half a home
        try:
            code = main(["--home", str(home), "demo"])
        except BaseException:
            failed.touch()
            raise
        if code == 0:
            # Once its files are past the hash cache's settling time (integrity.py), one report seals them all
            # into the cache: the workers' later reads then find every entry and write nothing into the home
            # while another worker may be copying it.
            import time

            time.sleep(2.5)
            code = main(["--home", str(home), "report", "--format", "json", "--resamples", "10"])
        (done if code == 0 else failed).touch()
        assert code == 0
        return home


if __name__ == "__main__":
    import lhl_platform.catalog  # noqa: F401  (the application assembled, as conftest has it)

    shared_demo_home(Path(sys.argv[1]))
