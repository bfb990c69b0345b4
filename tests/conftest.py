from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

import lhl_platform.catalog  # noqa: F401  (the application assembled: every suite registered)
from lhl_platform.domain.taxonomy import CLAUSE_TYPES

# The hash cache's sealing key lives outside any home (lhl_platform/events/cache_key.py): the tests keep theirs
# in a temporary folder of their own rather than in the user's state folder (subprocesses inherit it).
os.environ.setdefault("LHL_CACHE_KEY_FILE", str(Path(tempfile.mkdtemp(prefix="lhl-test-key-")) / "hash-cache.key"))

CUAD_DIR = Path(os.environ.get("LHL_CUAD_DIR", Path(__file__).resolve().parents[2] / "shared" / "cuad_v1"))


@pytest.fixture
def cuad_dir() -> Path:
    if not (CUAD_DIR / "master_clauses.csv").exists():
        pytest.skip(f"CUAD v1 not found at {CUAD_DIR} (set LHL_CUAD_DIR to run CUAD-scale tests)")
    return CUAD_DIR


MiniLayout = Callable[..., Path]


@pytest.fixture
def mini_layout(tmp_path: Path) -> MiniLayout:
    """Write a small corpus in CUAD's master-clauses layout: rows of (Filename, txt name, spans)."""

    def make(rows: list[tuple[str, str | None, dict[str, list[str]]]], header: list[str] | None = None) -> Path:
        root = tmp_path / "corpus"
        (root / "full_contract_txt").mkdir(parents=True, exist_ok=True)
        cols = header or ["Filename"] + [x for c in CLAUSE_TYPES for x in (c, f"{c}-Answer")]
        with (root / "master_clauses.csv").open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(cols)
            for filename, txt_name, spans in rows:
                cells = [filename]
                for c in CLAUSE_TYPES:
                    found = spans.get(c, [])
                    cells += [repr(found), "Yes" if found else "No"]
                writer.writerow(cells)
                if txt_name is not None:
                    (root / "full_contract_txt" / txt_name).write_text(
                        "AGREEMENT\n" + " ".join(" ".join(v) for v in spans.values()), encoding="utf-8")
        return root

    return make


@pytest.fixture(scope="session")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One `lhl demo` run shared by the tests that only read its results."""
    from orchestration.cli import main

    home = tmp_path_factory.mktemp("demo-home")
    assert main(["--home", str(home), "demo"]) == 0
    return home
