"""docs/architecture.md: dependencies point one way. The allowed directions are written down once, here.

Inside `lhl_platform`, a module may import its own group or any group of a lower layer; groups that share a
layer never import each other. The outer packages may import the domain, never the reverse, and the domain
never imports Dagster.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Lowest first. A group is a subpackage or a top-level module of lhl_platform.
LAYERS: list[set[str]] = [
    {"lhl_platform", "domain", "lexicon", "stats", "jsonl", "files", "registries"},  # typed records, pure functions;
    # files in and out; the catalog's tables
    {"events", "edits", "code_digest"},  # the append-only log (event types registered by their owners); the typed
    # legal edits; what the code is (the key of the home's caches)
    {"home"},  # the home folder
    {"corpus", "providers", "progress", "home_cache"},  # corpora; the model protocol, LLM providers, the offline
    # adapter; values kept in the home's cache
    {"calls"},  # the one call engine: ledger, unit loop, single-call stages, batch
    {"judging"},  # the judging engine (task, prompt, verdict parsing, offline judges, agreement)
    {"factory"},  # builds any model; suites register their offline models with it
    {"registry"},
    {"warehouse"},
    {"quality", "judges"},  # a check's outcome (every suite's checks return one); judge agreement
    {"monitoring"},  # a suite's series of audit rounds and its change detection (what a suite declares to monitor)
    {"suites"},  # the suite contract and the registered suites
    {"report"},  # what every suite's report shares (layout, labels, HTML shell, verdict, cost, figure primitives,
    # bootstrap helpers, publishing mechanics) and the shared report of a suite's sections; no suite's own report
    {"clause", "lexflip", "scrub", "insufficiency"},  # the suites, each in its own package (the clause suite's
    # extraction, judge partition, debate, audit, dry run, importer, checks, drift monitoring and its report in
    # clause/); none imports another
    {"review"},  # the review of the suites' gold (sheets, decisions, gold versions)
    {"catalog", "catalog_commands"},  # the application assembled: every suite registered; its commands declared
]
# What each outer package may import (besides the standard library and third parties).
OUTER: dict[str, set[str]] = {
    "resources": {"lhl_platform"},
    "checks": {"lhl_platform", "resources"},
    "assets": {"lhl_platform", "resources", "checks", "sql"},
    "orchestration": {"lhl_platform", "resources", "checks", "assets", "sql"},
}
OURS = {"lhl_platform", *OUTER, "sql"}



def _group(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "lhl_platform" or len(parts) == 1:
        return parts[0]
    return parts[1]


def _imports(package: str) -> set[tuple[str, str]]:
    """(importing group or file, imported module) pairs, lazy imports included."""
    found = set()
    for path in (ROOT / package).rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        source = _group(".".join(p for p in rel.parts if p != "__init__"))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {(source, alias.name) for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add((source, node.module))
    return found


def _layer(group: str) -> int:
    return next(i for i, groups in enumerate(LAYERS) if group in groups)


def test_every_domain_group_has_a_layer():
    groups = {_group(".".join(p.relative_to(ROOT).with_suffix("").parts).replace(".__init__", ""))
              for p in (ROOT / "lhl_platform").rglob("*.py")}
    assert groups <= set().union(*LAYERS), groups - set().union(*LAYERS)


def test_domain_imports_point_down_only():
    offenders = []
    for source, module in _imports("lhl_platform"):
        if module.split(".")[0] != "lhl_platform":
            continue
        target = _group(module)
        if target != source and _layer(target) >= _layer(source):
            offenders.append(f"{source} -> {target}")
    assert sorted(set(offenders)) == []


def test_domain_layer_never_imports_dagster_or_the_outer_layers():
    outer = {"dagster", "dagster_webserver", *OUTER}
    assert sorted({(s, m) for s, m in _imports("lhl_platform") if m.split(".")[0] in outer}) == []


def test_outer_packages_import_only_what_they_may():
    offenders = []
    for package, allowed in OUTER.items():
        for _source, module in _imports(package):
            top = module.split(".")[0]
            if top in OURS and top != package and top not in allowed:
                offenders.append(f"{package} -> {top}")
    assert sorted(set(offenders)) == []
