from __future__ import annotations

import csv
import json
import os
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import lhl_platform.catalog  # noqa: F401  (the application assembled: every suite registered)
from lhl_platform.domain.taxonomy import CLAUSE_TYPES

# The hash cache's sealing key lives outside any home (lhl_platform/events/cache_key.py): the tests keep theirs
# in a temporary folder of their own rather than in the user's state folder (subprocesses inherit it).
# Under xdist the workers of one run share one key (named by the run's id), so a home one worker built (the shared
# demo home below) reads with valid seals in the others instead of each rewriting its cache.
if os.environ.get("PYTEST_XDIST_TESTRUNUID") and "LHL_CACHE_KEY_FILE" not in os.environ:
    os.environ["LHL_CACHE_KEY_FILE"] = str(Path(tempfile.gettempdir())
                                           / f"lhl-test-key-{os.environ['PYTEST_XDIST_TESTRUNUID']}" / "hash-cache.key")
os.environ.setdefault("LHL_CACHE_KEY_FILE", str(Path(tempfile.mkdtemp(prefix="lhl-test-key-")) / "hash-cache.key"))
# A report writes its figures into the home's figure cache: off in tests (the shared demo home is copied by other
# workers while it is read); tests/test_figure_cache.py turns it on for its own homes.
os.environ.setdefault("LHL_FIGURE_CACHE", "off")

_MADE_BASETEMP = pytest.StashKey[Path]()
_DEMO_BUILDER = pytest.StashKey[subprocess.Popen[bytes]]()


@pytest.hookimpl(tryfirst=True)  # before pytest's tmpdir plugin reads --basetemp
def pytest_configure(config: pytest.Config) -> None:
    """The run's basetemp (every tmp_path, home and Dagster instance) on tmpfs when /dev/shm has room: Dagster's
    SQLite storage commits every event. A --basetemp given (and an xdist worker's, which the controller gives it)
    is left alone; the folder made here is removed when the run ends."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        config.option.loadscopereorder = False  # the workers' collection order is the files' (slowest first)
    if config.option.basetemp or hasattr(config, "workerinput"):
        return
    from tests.speed_tmpfs import run_basetemp

    base, why = run_basetemp()
    if base is None:
        config.issue_config_time_warning(pytest.PytestConfigWarning(
            f"test homes on the default temporary folder, not tmpfs: {why} (slower)"), stacklevel=2)
        return
    config.option.basetemp = str(base)
    config.stash[_MADE_BASETEMP] = base


@pytest.hookimpl(tryfirst=True)  # before xdist's controller reads the basetemp to start its workers
def pytest_sessionstart(session: pytest.Session) -> None:
    """When the whole suite runs under xdist, the controller starts the shared demo home's build in the background
    (tests/shared_demo.py): the workers run other files meanwhile instead of one waiting for the other's build.
    The workers inherit this process's environment (the hash cache's key, the figure cache's switch), as does the
    builder. A run of chosen files or tests builds the demo only if one of them asks for it."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None) \
            or config.args_source is not pytest.Config.ArgsSource.TESTPATHS \
            or config.option.keyword or config.option.markexpr:
        return
    import sys

    # The run's root, made now: pytest empties a given basetemp at its first use, so it must precede the build's.
    root = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    log = (root / "shared-demo-home.log").open("wb")
    config.stash[_DEMO_BUILDER] = subprocess.Popen(
        [sys.executable, "-m", "tests.shared_demo", str(root)], cwd=config.rootpath, env=dict(os.environ),
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    log.close()


# The slowest files, slowest first, as measured on 2 cores (seconds of one worker in a clean-clone `.ci/run`; only
# the order is used). Under xdist's --dist loadfile a worker takes the next file as it gets free, and by default the
# files come by their number of tests, which sends a long file of few tests (a deployment, a recovery) last, where
# it runs alone while the other worker idles. Slowest first, the run ends on the short files instead (the batch
# audits lead: they need no demo home, which the background builder is still building).
SLOWEST_FILES = (
    "test_batch_audit.py",  # ~100
    "test_warehouse.py",  # ~140
    "test_production_deployment.py", "test_llm_judge_path.py", "test_debate_pipeline.py", "test_coverage.py",  # ~70
    "test_warehouse_snapshots.py", "test_spend_limit.py", "test_simulated_recovery.py", "test_shared_store.py",  # ~55
    "test_scrub_build.py", "test_judge_marks.py", "test_scrub_suite.py", "test_judges.py", "test_review.py",  # ~40
    "test_secret_echo.py", "test_judge_coverage.py", "test_insufficiency_suite.py", "test_shared_store_suites.py",
    "test_reader_check.py", "test_cost_report.py", "test_judge_marks_suites.py", "test_shared_store_resume.py",  # ~30
    "test_terminal_noise.py", "test_report_html.py", "test_change_detection.py", "test_cli_audit.py",
    "test_scopes.py", "test_price_table.py", "test_resume.py",  # ~22-26
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist, the files slowest first (SLOWEST_FILES), then the others by their number of tests as xdist
    orders them; a file's tests keep their order (its module fixtures are built once). Every worker collects the
    same order, as xdist requires."""
    if not hasattr(config, "workerinput"):
        return
    counts: dict[str, int] = {}
    for item in items:
        counts[item.path.name] = counts.get(item.path.name, 0) + 1
    rank = {name: i for i, name in enumerate(SLOWEST_FILES)}
    items.sort(key=lambda item: (rank.get(item.path.name, len(rank)), -counts[item.path.name], str(item.path)))


def pytest_report_header(config: pytest.Config) -> str | None:
    made = config.stash.get(_MADE_BASETEMP, None)
    return f"basetemp on tmpfs: {made}" if made else None


def pytest_unconfigure(config: pytest.Config) -> None:
    builder = config.stash.get(_DEMO_BUILDER, None)
    if builder is not None and builder.poll() is None:  # a run that ended before the demo was built
        builder.terminate()
        builder.wait()
    made = config.stash.get(_MADE_BASETEMP, None)
    if made is not None:
        import shutil

        shutil.rmtree(made, ignore_errors=True)  # memory, not disk


CUAD_DIR = Path(os.environ.get("LHL_CUAD_DIR", Path(__file__).resolve().parents[2] / "shared" / "cuad_v1"))


@pytest.fixture
def shared(postgres, s3, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A fresh shared store (its own database and bucket prefix) attached through the environment: its env.
    `postgres` (tests/test_publish.py) and `s3` (tests/shared_store_support.py) are the fixtures the requesting
    module imports."""
    from tests.shared_store_support import new_store

    env = new_store(postgres)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


@pytest.fixture(scope="session")
def two_step_homes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(first, second): the folder homes of one small audit in two steps (tests/shared_store_support.py), made once
    for the worker's shared-store files, which only read them (`lhl home migrate` leaves a folder home as it was)."""
    from orchestration.cli import main
    from tests.shared_store_support import two_step_audit

    def run(home: Path, *argv: str) -> None:
        assert main(["--home", str(home), *argv]) == 0, argv

    return two_step_audit(tmp_path_factory.mktemp("two-steps"), run)


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
        return write_mini_layout(tmp_path, rows, header)

    return make


def write_mini_layout(base: Path, rows: list[tuple[str, str | None, dict[str, list[str]]]],
                      header: list[str] | None = None) -> Path:
    """`mini_layout` into `base/corpus`, for module-scoped fixtures (which cannot take the per-test fixture)."""
    root = base / "corpus"
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


@pytest.fixture(scope="session")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One `lhl demo` run shared by the tests that only read its results.

    Under xdist every worker's basetemp sits in one folder of this run: the first worker to ask (or the builder
    pytest_sessionstart starts) builds the demo there under a file lock and the others wait and read the same
    home (a demo costs a minute and more of CPU; the tests that change a home copy it first). Without xdist, or
    when the shared build failed, this process builds its own."""
    from orchestration.cli import main

    if os.environ.get("PYTEST_XDIST_WORKER"):
        from tests.shared_demo import shared_demo_home

        shared = shared_demo_home(tmp_path_factory.getbasetemp().parent, main)
        if shared is not None:
            return shared
    home = tmp_path_factory.mktemp("demo-home")
    assert main(["--home", str(home), "demo"]) == 0
    return home


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[dict[str, object]]]]:
    """A loopback HTTP receiver on 127.0.0.1 that keeps every JSON body POSTed to it."""
    bodies = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the http.server protocol
            length = int(self.headers.get("Content-Length", 0))
            bodies.append(json.loads(self.rfile.read(length)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", bodies
    server.shutdown()
    server.server_close()
