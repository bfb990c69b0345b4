"""A command loads only the suite it runs (issue #27): the catalog declares every suite by its light parts (event
types, SQL folder, scope) and loads a suite's stages, scoring and report when it is looked up; a report reads the
event log without pyarrow.dataset (which imports pandas). Each check runs in a fresh interpreter and reads what it
loaded (sys.modules), never a timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUITES = ("clause", "lexflip", "insufficiency", "contractscrub")
# Each suite's modules that only its own commands need (its stages and scoring).
STAGE_MODULES = {
    "clause": ("lhl_platform.clause.stages",),
    "lexflip": ("lhl_platform.lexflip.validate",),
    "insufficiency": ("lhl_platform.insufficiency.stages", "lhl_platform.insufficiency.scoring"),
    "contractscrub": ("lhl_platform.scrub.stages",),
}
NEVER_ON_A_REPORT = ("pandas", "pyarrow.dataset", "dagster", "matplotlib")

# Runs main(argv) in a fresh interpreter (stdout aside; --help exits) and prints, as JSON, its exit code and the
# modules it loaded.
PROBE = """
import contextlib, io, json, sys
from orchestration.cli import main

def _run(argv):
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code

with contextlib.redirect_stdout(io.StringIO()):
    code = _run(json.loads(sys.argv[1]))
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

# The catalog as declared, then with every suite loaded: its event types, SQL packages and pending suites.
CATALOG = """
import json, sys
from lhl_platform.catalog import CATALOG

def state():
    return {"kinds": {n: [k.payload.__module__ + "." + k.payload.__qualname__, k.staging, k.owner]
                      for n, k in sorted(CATALOG.kinds.items())},
            "packages": [[p.name, str(p.folder), p.scope.model_dump() if p.scope else None] for p in CATALOG.packages],
            "pending": sorted(CATALOG.pending)}

declared = state()
loaded_on_import = sorted(sys.modules)
from lhl_platform.suites import get_suite
get_suite(sys.argv[1])
one = {"pending": sorted(CATALOG.pending), "modules": sorted(sys.modules)}
from lhl_platform.suites import suites
names = [s.name for s in suites()]
print(json.dumps({"declared": declared, "on_import": loaded_on_import, "one": one, "names": names,
                  "loaded": state()}))
"""


def _probe(code: str, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def _stage_modules(modules: set[str], suites: tuple[str, ...]) -> set[str]:
    return {m for s in suites for m in STAGE_MODULES[s] if m in modules}


def test_a_report_loads_no_pandas_dagster_nor_another_suites_stages(demo_home: Path) -> None:
    probe = _probe(PROBE, json.dumps(["--home", str(demo_home), "report", "--format", "json"]))
    modules = set(probe["modules"])
    assert probe["code"] == 0
    assert {m for m in modules if any(m == h or m.startswith(h + ".") for h in NEVER_ON_A_REPORT)} == set()
    assert _stage_modules(modules, ("lexflip", "insufficiency", "contractscrub")) == set()


def test_a_suites_report_loads_that_suite_only(demo_home: Path) -> None:
    probe = _probe(PROBE, json.dumps(["--home", str(demo_home), "report", "--suite", "contractscrub",
                                      "--format", "json"]))
    modules = set(probe["modules"])
    assert probe["code"] == 0
    assert "pandas" not in modules and "dagster" not in modules
    assert _stage_modules(modules, ("clause", "lexflip", "insufficiency")) == set()


def test_the_declarations_register_what_the_loaded_suites_do() -> None:
    probe = _probe(CATALOG, "insufficiency")
    # Declared: every suite pending, none of their stages imported, yet every event type and SQL package there.
    assert probe["declared"]["pending"] == sorted(SUITES)
    assert _stage_modules(set(probe["on_import"]), SUITES) == set()
    # Looking one suite up loads that suite only.
    assert probe["one"]["pending"] == sorted(set(SUITES) - {"insufficiency"})
    assert _stage_modules(set(probe["one"]["modules"]), ("clause", "lexflip", "contractscrub")) == set()
    assert _stage_modules(set(probe["one"]["modules"]), ("insufficiency",))
    # Every suite loaded, in the declared order: the same event types (class, staging table, owner) and packages.
    assert probe["names"] == list(SUITES)
    assert probe["loaded"]["pending"] == []
    assert probe["loaded"]["kinds"] == probe["declared"]["kinds"]
    assert probe["loaded"]["packages"] == probe["declared"]["packages"]
    assert [p[0] for p in probe["declared"]["packages"]] == list(SUITES)


def test_help_loads_no_pydantic_nor_logging_nor_any_suite(tmp_path: Path) -> None:
    # Only a command that runs needs the error reporter (pydantic's ValidationError) and the log redaction.
    probe = _probe(PROBE, json.dumps(["--home", str(tmp_path), "--help"]))
    modules = set(probe["modules"])
    assert probe["code"] == 0
    heavy = ("pydantic", "logging", "duckdb", "pyarrow", *NEVER_ON_A_REPORT)
    assert {m for m in modules if any(m == h or m.startswith(h + ".") for h in heavy)} == set()
    assert _stage_modules(modules, SUITES) == set()


def test_a_suite_that_is_not_what_its_declaration_says_is_refused() -> None:
    from lhl_platform.registries import Catalog, using
    from lhl_platform.suites import declare_suite, get_suite
    from lhl_platform.suites.declared import DeclaredSuite
    from sql import SQL_DIR

    # ContractScrub declared without its scope: looking it up loads the suite, which has one, and is refused.
    with using(Catalog()) as own:
        declare_suite(DeclaredSuite("contractscrub", "lhl_platform.scrub.suite", SQL_DIR / "scrub"))
        with pytest.raises(ValueError, match="has scope .* its declaration in the catalog says None"):
            get_suite("contractscrub")
        assert own.pending == {"contractscrub"}
        assert isinstance(own.entries["contractscrub"], DeclaredSuite)
