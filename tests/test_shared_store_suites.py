"""Every suite's audit against the shared store as well as the folder: one small audit of each suite (the clause
suite, ContractScrub, InsufficiencyBench; offline models) in a home attached to the shared store and in a folder
home, at the same time, once for the module. Their `lhl report --suite S --format json` are equal figure for
figure, and `lhl verify` passes on the shared store, from the auditing home and from a home that holds nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lhl_platform.events.store import CATALOG_URL_ENV, EVENTS_URL_ENV
from orchestration.cli import main
from tests.helpers import clock_readings_apart
from tests.shared_store_support import new_store, s3, set_env  # noqa: F401  (a fixture)
from tests.test_publish import postgres  # noqa: F401  (the module-scoped PostgreSQL server fixture)

pytest.importorskip("psycopg")
ROOT = Path(__file__).resolve().parents[1]
SUITES = ("clause", "contractscrub", "insufficiency")

# Small audits: the clause suite on a stored subset of 2 demo contracts, ContractScrub on 1 contract of a
# 2-contract self-built set, InsufficiencyBench's self-built items answered by one calibration responder. The
# first two audits leave the metrics job to the last (`lhl audit`'s own path with `metrics` off), which builds
# every suite's SQL models and checks once.
SETUP = textwrap.dedent("""
    import sys
    from lhl_platform.corpus.demo import DEMO_DIR
    from lhl_platform.home import Home
    from lhl_platform.suites import get_suite
    from orchestration.cli import main
    from orchestration.cli.audit import AuditOptions, run_audit

    home = sys.argv[1]

    def audit(suite, model, options):
        assert run_audit(Home.resolve(home), get_suite(suite), [model], [1], options, metrics=False) == 0, suite

    for argv in (["ingest", "cuad", str(DEMO_DIR)], ["subset", "create", "two", "--size", "2", "--seed", "1"],
                 ["models", "add", "lex", "--provider", "offline", "--model-id", "lexical"],
                 ("clause", "lex", AuditOptions(subset="two")),
                 ["scrub", "build", "--contracts", "2", "--seed", "0"],
                 ["models", "add", "rules", "--provider", "offline", "--model-id", "scrub-rules"],
                 ("contractscrub", "rules", AuditOptions(contracts=1)),
                 ["models", "add", "gold", "--provider", "offline", "--model-id", "gold-reader"],
                 ["audit", "--suite", "insufficiency", "--models", "gold"]):
        if isinstance(argv, tuple):
            audit(*argv)
        else:
            assert main(["--home", home, *argv]) == 0, argv
""")


@pytest.fixture(scope="module")
def homes(postgres, s3, tmp_path_factory):  # noqa: F811
    """(the shared store's env, a home that audited against it, a folder home that audited the same)."""
    store = new_store(postgres)
    root = tmp_path_factory.mktemp("suites")
    shared_home, folder_home = root / "shared", root / "folder"
    base = {k: v for k, v in os.environ.items() if not k.endswith("API_KEY") and k not in store}
    setups = [subprocess.Popen([sys.executable, "-c", SETUP, str(home)], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
              for home, env in ((shared_home, {**base, **store}), (folder_home, base))]
    outs = [p.communicate(timeout=900) for p in setups]
    assert all(p.returncode == 0 for p in setups), [err[-3000:] for _, err in outs]
    assert not (folder_home / "events" / ".shared-store.json").exists()
    assert (shared_home / "events" / ".shared-store.json").exists()
    return store, shared_home, folder_home


def _report(capsys, home: Path, suite: str) -> dict:
    capsys.readouterr()
    assert main(["--home", str(home), "report", "--suite", suite, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _verify(capsys, home: Path) -> dict[str, str]:
    capsys.readouterr()
    assert main(["--home", str(home), "verify"]) == 0
    lines = capsys.readouterr().out.splitlines()
    return {line.split(":", 1)[0]: line for line in lines if ":" in line}


@pytest.mark.parametrize("suite", SUITES)
def test_a_suite_audited_against_the_shared_store_reports_as_in_a_folder_home(homes, suite, capsys):
    store, shared_home, folder_home = homes
    with set_env({EVENTS_URL_ENV: None, CATALOG_URL_ENV: None}):
        folder = _report(capsys, folder_home, suite)
    with set_env(store):
        shared = _report(capsys, shared_home, suite)
    assert folder["leaderboard"], "the audit scored something"
    (shared, shared_timings), (folder, folder_timings) = clock_readings_apart(shared), clock_readings_apart(folder)
    assert shared == folder
    assert len(shared_timings) == len(folder_timings) and None not in shared_timings + folder_timings


def test_verify_passes_on_the_shared_store_from_the_auditing_home_and_an_empty_one(homes, tmp_path, capsys):
    store, shared_home, folder_home = homes
    with set_env(store):
        audited = _verify(capsys, shared_home)
        fresh = _verify(capsys, tmp_path / "empty")  # every object read back from the bucket
    with set_env({EVENTS_URL_ENV: None, CATALOG_URL_ENV: None}):
        folder = _verify(capsys, folder_home)
    for what in ("event log intact", "corpora intact", "checkpoint"):
        assert fresh[what] == audited[what], what
    # the same events as the folder home's (their segments are cut where each home's commits fell)
    assert audited["event log intact"].split(", ")[::2] == folder["event log intact"].split(", ")[::2]
