"""A new suite lands as its own folders plus one registration, with no edit elsewhere: the toy suite's files are
its folder (`tests/toy_suite`: modules and SQL) and its test, no platform module names it, and it reaches the
platform through the one registration call. Read from the files as text (nothing is imported or registered)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "tests" / "toy_suite"
TEST = ROOT / "tests" / "test_toy_suite.py"
# The folders of the platform a suite could otherwise need an edit in.
PLATFORM = ("lhl_platform", "orchestration", "assets", "checks", "resources", "sql", "deployments")
# What hands a suite's parts to the platform; a suite calls only `register_suite` (through the catalog) itself.
REGISTRATIONS = {"register_suite", "declare_suite", "catalog_with", "register_events", "register_offline_models",
                 "register_sql_folder"}
# Module-level registrations a suite's own modules may make of their own things on import (its event types).
OWN = {"register_events"}


def _toy_files() -> set[str]:
    return {p.relative_to(TOY).as_posix() for p in TOY.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def _calls(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            f = node.func
            names.append(f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "")
    return names


def test_the_toy_suite_is_its_own_folder_of_modules_and_sql() -> None:
    assert _toy_files() == {"__init__.py", "suite.py", "stages.py", "events.py", "task.py",
                            "sql/intermediate/toy_cells.sql", "sql/marts/toy_units.sql",
                            "sql/marts/toy_leaderboard.sql"}
    # Its SQL is found through the suite (`Suite.sql`), not from a platform folder.
    assert 'SQL = Path(__file__).parent / "sql"' in (TOY / "suite.py").read_text()


def test_no_platform_file_names_the_toy_suite() -> None:
    word = re.compile(r"\btoy(_suite|_\w+|-\w+)?\b", re.IGNORECASE)
    named = []
    for folder in PLATFORM:
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".sql", ".yaml", ".toml"):
                named += [f"{path.relative_to(ROOT)}:{n}" for n, line in enumerate(path.read_text().splitlines(), 1)
                          if word.search(line)]
    assert named == []


def test_the_toy_suite_registers_through_the_one_catalog_call() -> None:
    # The suite's modules register nothing but their own event types, and never the suite itself.
    for path in TOY.rglob("*.py"):
        assert set(_calls(path)) & REGISTRATIONS <= OWN, path.name
    # Its test hands the suite to the platform once, through the catalog (`register_suite` in a catalog of its own).
    calls = [c for c in _calls(TEST) if c in REGISTRATIONS]
    assert calls == ["catalog_with", "register_suite"]
    source = TEST.read_text()
    assert source.count("register_suite(SUITE)") == 1 and "from tests.toy_suite.suite import SUITE" in source
    # ...and never reaches into the catalog's tables to add or remove a part of it.
    assert not re.search(r"\.(suites|kinds|offline|packages)\s*(\[[^\]]*\]\s*=|\.(pop|clear|update)\()", source)


def test_the_platforms_suites_are_registered_in_the_catalog_only() -> None:
    # The application's own suites follow the same rule: each is declared once, in `lhl_platform.catalog`.
    catalog = (ROOT / "lhl_platform" / "catalog.py").read_text()
    for package in ("clause", "lexflip", "insufficiency", "scrub"):
        assert catalog.count(f'"lhl_platform.{package}.suite"') == 1, package
    machinery = {ROOT / "lhl_platform" / "catalog.py", *(ROOT / "lhl_platform" / "suites").glob("*.py")}
    for folder in PLATFORM:
        for path in set((ROOT / folder).rglob("*.py")) - machinery:  # registration is defined in lhl_platform.suites
            assert not {"register_suite", "declare_suite"} & set(_calls(path)), path
