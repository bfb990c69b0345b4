"""Homes on tmpfs for the audit-heavy test modules: Dagster's SQLite event log commits every event, and on a
disk those commits are most of an audit's time. A module binds `tmp_path`, `tmpfs_factory` (and
`tmp_path_factory`) from here to put its homes in memory; where /dev/shm is missing or
small (a container's 64 MB default) they stay on pytest's own temporary directory."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SHM = Path("/dev/shm")
NEEDED_BYTES = 2 * 1024 ** 3  # an audited demo home is tens of MB; leave room for parallel workers


def _root() -> Path | None:
    try:
        return SHM if SHM.is_dir() and shutil.disk_usage(SHM).free >= NEEDED_BYTES else None
    except OSError:
        return None


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
