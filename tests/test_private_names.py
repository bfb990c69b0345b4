"""A name with a leading underscore is its module's own: no module of `lhl_platform` or `orchestration` imports
one from another module (or reads one off an imported module), so what modules share has a public name in the
module that owns it."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(source: str) -> list[str]:
    """`from lhl_platform.x import _y` and `lhl_platform.x._y` (through an imported module's name) in `source`."""
    tree = ast.parse(source)
    modules: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.asname or alias.name for alias in node.names if alias.name.startswith("lhl_platform")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lhl_platform"):
            found += [f"{node.module}.{a.name}" for a in node.names if _private(a.name)]
            modules |= {a.asname or a.name for a in node.names}  # a submodule imported by name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name)
                and node.value.id in modules):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_the_check_finds_a_private_import():
    assert private_imports("from lhl_platform.report.html import _x, table\n") == ["lhl_platform.report.html._x"]
    assert private_imports("from lhl_platform.report import html\nhtml._x\n") == ["html._x"]
    assert private_imports("from lhl_platform import __version__\n") == []


def test_no_private_name_is_imported_across_modules():
    offenders = [f"{path.relative_to(ROOT)}: {name}" for package in ("lhl_platform", "orchestration")
                 for path in sorted((ROOT / package).rglob("*.py")) for name in private_imports(path.read_text())]
    assert offenders == []
