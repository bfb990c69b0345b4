"""A command loads only what it runs (issue #27): `lhl --help`, `lhl X --help` and an argument error build the
command tree from light modules; a command that runs has every suite registered first; the catalog's suites
declare their commands (lhl_platform.catalog_commands) as their `Suite.commands` define them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lhl_platform.catalog_commands import DECLARED
from lhl_platform.suites import get_suite, suites
from orchestration.cli import build_cli, main

HEAVY = ("duckdb", "pyarrow", "numpy", "dagster", "pandas", "matplotlib", "asyncio", "importlib.metadata",
         "lhl_platform.catalog")
ROOT = Path(__file__).resolve().parents[1]

# Runs main(argv) in a fresh interpreter and prints, as JSON, its exit code and the modules it loaded.
PROBE = """
import json, sys
from orchestration.cli import main
try:
    code = main(json.loads(sys.argv[1]))
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _loaded(argv: list[str], tmp_path: Path) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(["--home", str(tmp_path / "home"), *argv])],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    probe = json.loads(done.stdout.splitlines()[-1])
    return probe["code"], set(probe["modules"])


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)}


@pytest.mark.parametrize("argv", [["--help"], ["report", "--help"], ["audit", "--help"],
                                  ["report", "--format", "nope"], ["no-such-command"]])
def test_help_and_argument_errors_load_no_suite_nor_heavy_library(argv: list[str], tmp_path: Path) -> None:
    code, modules = _loaded(argv, tmp_path)
    assert code == (0 if "--help" in argv else 2)
    assert _heavy(modules) == set()
    assert not {m for m in modules if m.split(".")[:2] in (["lhl_platform", s] for s in
                                                          ("clause", "scrub", "insufficiency", "lexflip"))}


def test_a_suite_group_loads_its_commands_module_only(tmp_path: Path) -> None:
    code, modules = _loaded(["scrub", "--help"], tmp_path)
    assert code == 0
    assert "lhl_platform.scrub.commands" in modules
    assert "lhl_platform.catalog" not in modules and "lhl_platform.insufficiency.commands" not in modules


def test_a_command_that_runs_has_every_suite_registered(tmp_path: Path) -> None:
    # `lhl suites` reads the registry: it lists every suite only if the catalog was assembled before it ran.
    done = subprocess.run([sys.executable, "-m", "orchestration.cli", "--home", str(tmp_path / "home"), "suites"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    listed = [line.split()[0] for line in done.stdout.splitlines() if line and not line.startswith(" ")]
    assert listed == [suite.name for suite in suites()]
    assert {"clause", "insufficiency", "contractscrub", "lexflip"} <= set(listed)


def test_the_declared_commands_are_the_catalog_suites_commands() -> None:
    declared = {d.suite: d for d in DECLARED}
    with_commands = {s.name for s in suites() if s.commands}
    assert set(declared) == with_commands
    for name, d in declared.items():
        suite = get_suite(name)
        assert d.title == suite.title
        assert tuple(d.load()) == tuple(suite.commands)
        assert set(d.words) == {c.path[0] for c in suite.commands}


def test_declared_commands_load_when_their_group_is_reached_and_run(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    cli = build_cli()
    group = cli.groups["insufficiency"]
    assert group.choices == {}  # declared, not loaded: `lhl --help` needs only the group's name
    with pytest.raises(SystemExit):
        cli.parser.parse_args(["insufficiency", "--help"])
    assert set(group.choices) == {"judge", "export"}
    capsys.readouterr()
    home = str(tmp_path / "home")
    assert main(["--home", home, "ingest", "insufficiency"]) == 0  # the self-built item set
    assert main(["--home", home, "insufficiency", "export", str(tmp_path / "items.jsonl")]) == 0
    assert (tmp_path / "items.jsonl").read_text().strip()
    with pytest.raises(SystemExit) as error_exit:
        main(["--home", home, "scrub", "build", "--contracts", "many"])
    assert error_exit.value.code == 2 and "--contracts" in capsys.readouterr().err
