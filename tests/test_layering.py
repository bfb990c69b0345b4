"""ARCHITECTURE.md: the domain layer never imports Dagster; dependencies point one way."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(package: str) -> set[tuple[str, str]]:
    found = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {(str(path.relative_to(ROOT)), alias.name.split(".")[0]) for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add((str(path.relative_to(ROOT)), node.module.split(".")[0]))
    return found


def test_domain_layer_never_imports_dagster_or_the_outer_layers():
    outer = {"dagster", "dagster_webserver", "assets", "checks", "resources", "orchestration"}
    offenders = sorted((f, m) for f, m in _imports("lhl_platform") if m in outer)
    assert offenders == []


def test_resources_do_not_import_assets_or_checks():
    assert sorted((f, m) for f, m in _imports("resources") if m in {"assets", "checks", "orchestration"}) == []
