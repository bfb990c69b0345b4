"""Homes on tmpfs: Dagster's SQLite event log commits every event, and on a disk those commits are most of an
audit's time. conftest puts the whole run's basetemp (every `tmp_path`, every home, every Dagster instance) under
/dev/shm when it has room (`run_basetemp`); besides, a module may bind `tmp_path`, `tmpfs_factory` (and
`tmp_path_factory`) from here to put its homes in memory and free them module by module. Where /dev/shm is missing
or small (a container's 64 MB default) they stay on pytest's own temporary directory, and the run says so."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SHM = Path("/dev/shm")
NEEDED_BYTES = 2 * 1024 ** 3  # an audited demo home is tens of MB; leave room for parallel workers
# A whole run keeps every passed test's tmp_path until it ends (a few GB over the suite): the run's basetemp goes
# to tmpfs only with this much free.
RUN_NEEDED_BYTES = 8 * 1024 ** 3


def _root(needed: int = NEEDED_BYTES) -> Path | None:
    try:
        return SHM if SHM.is_dir() and shutil.disk_usage(SHM).free >= needed else None
    except OSError:
        return None


def run_basetemp() -> tuple[Path | None, str]:
    """A fresh folder on tmpfs for this run's basetemp, or None and why not (the run then uses pytest's default).
    Fresh (mkdtemp) because pytest empties a given basetemp first: runs started side by side must not share one."""
    _remove_stale_runs()
    root = _root(RUN_NEEDED_BYTES)
    if root is None:
        return None, f"{SHM} is missing or has under {RUN_NEEDED_BYTES // 1024 ** 3} GB free"
    return Path(tempfile.mkdtemp(prefix="lhl-pytest-", dir=root)), ""


def _remove_stale_runs(older_than_s: float = 12 * 3600) -> None:
    """The folders of runs that were killed before they could remove theirs (memory, not disk); no run lasts
    12 hours, so none of these is a live run's."""
    import time

    for old in SHM.glob("lhl-pytest-*"):
        try:
            if time.time() - old.stat().st_mtime > older_than_s:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass


class TmpfsFactory:
    """`mktemp` like pytest's TempPathFactory, in one directory removed when the module's tests are done."""

    def __init__(self, base: Path) -> None:
        self.base = base

    def mktemp(self, basename: str, numbered: bool = True) -> Path:
        return Path(tempfile.mkdtemp(prefix=f"{basename}-", dir=self.base))


@pytest.fixture(scope="module")
def tmpfs_factory(request: pytest.FixtureRequest) -> Iterator[TmpfsFactory | pytest.TempPathFactory]:
    root = _root()
    if root is None:
        yield request.config._tmp_path_factory  # type: ignore[attr-defined]  # pytest's own, on disk
        return
    base = Path(tempfile.mkdtemp(prefix="lhl-tests-", dir=root))
    try:
        yield TmpfsFactory(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def tmp_path_factory(tmpfs_factory: TmpfsFactory | pytest.TempPathFactory) -> TmpfsFactory | pytest.TempPathFactory:
    """For a module's own module-scoped homes; a module using a session fixture built with pytest's
    tmp_path_factory (conftest's demo_home) binds only `tmp_path` and `tmpfs_factory`."""
    return tmpfs_factory


@pytest.fixture
def tmp_path(tmpfs_factory: TmpfsFactory | pytest.TempPathFactory,
             request: pytest.FixtureRequest) -> Iterator[Path]:
    name = "".join(c if c.isalnum() else "_" for c in request.node.name)[:30]
    path = tmpfs_factory.mktemp(name, numbered=True)
    yield path
    if isinstance(tmpfs_factory, TmpfsFactory):
        shutil.rmtree(path, ignore_errors=True)  # memory, not disk: free it test by test
