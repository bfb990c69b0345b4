"""Partitions per suite job (issue #27): each partitioned asset's partitions are exactly the models and runs launched
through its job, all materialized after the audits (the UI shows none missing); a judge or another suite's model
is never a partition of the clause audit; every asset has a group of its own and the scope tables their upstream."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
from dagster import AssetKey, DagsterInstance, build_sensor_context, instance_for_test

from assets.partitions import audit_key, partition_set
from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import save_corpus
from lhl_platform.domain.models import ModelSpec
from lhl_platform.home import Home
from lhl_platform.registry import add_model
from lhl_platform.suites import get_suite
from orchestration.automation import model_registry_sensor
from orchestration.cli import main
from orchestration.definitions import definitions
from orchestration.launch import instance_for
from resources import LhlHome

CLAUSE_MODELS = ("lexical",)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    """Two suites audited through the CLI: the clause audit (one model, two runs, a judge registered beside
    it) and InsufficiencyBench (one model, one run)."""
    home = Home.resolve(tmp_path_factory.mktemp("suite-partitions")).ensure()
    save_corpus(home, load_master_layout(DEMO_DIR), source=str(DEMO_DIR))
    add_model(home, ModelSpec(name="lexical", provider="offline", model_id="lexical"))
    add_model(home, ModelSpec(name="overlap-judge", provider="offline", model_id="overlap", role="judge"))
    assert main(["--home", str(home.root), "audit", "--models", ",".join(CLAUSE_MODELS), "--runs", "1,2"]) == 0
    suite = get_suite("insufficiency")
    assert suite.demo is not None
    if suite.demo.prepare is not None:
        suite.demo.prepare(home)
    spec = next(spec for spec, _ in suite.demo.models if spec.name == "gold-reader")
    add_model(home, spec)
    assert main(["--home", str(home.root), "audit", "--suite", "insufficiency", "--models", spec.name,
                 "--runs", "1"]) == 0
    return home


def _keys(models: Iterable[str], runs: Iterable[int]) -> set[str]:
    return {str(audit_key(m, r)) for m in models for r in runs}


def _partitions(instance: DagsterInstance) -> dict[str, tuple[set[str], set[str]]]:
    """Per partitioned asset: (its partition keys, its materialized partition keys)."""
    graph = definitions().resolve_asset_graph()
    out = {}
    for key in graph.get_all_asset_keys():
        node = graph.get(key)
        if node.partitions_def is not None:
            every = set(node.partitions_def.get_partition_keys(dynamic_partitions_store=instance))
            out[key.to_user_string()] = every, set(instance.get_materialized_partitions(key))
    return out


def test_each_suite_is_partitioned_by_its_audited_models_and_none_is_missing(home: Home) -> None:
    instance = instance_for(home)
    try:
        found = {asset: keys for asset, keys in _partitions(instance).items() if keys[0]}
        # the registry sensor (running under `lhl ui`) offers nothing: every model under test was audited, and
        # the judge is none of them
        tick = model_registry_sensor(build_sensor_context(instance=instance, resources={"lhl": LhlHome(
            path=str(home.root))}))
    finally:
        instance.dispose()
    assert tick.dynamic_partitions_requests == []
    expected = {
        **dict.fromkeys(("extractions", "judge_verdicts", "model_profiles"), _keys(CLAUSE_MODELS, (1, 2))),
        **dict.fromkeys(("insufficiency_responses", "insufficiency_judgments"), _keys(["gold-reader"], [1])),
    }
    assert set(found) == set(expected)  # the debate and contractscrub, never launched, have no partition at all
    for asset, keys in expected.items():
        every, materialized = found[asset]
        assert every == keys, asset
        assert materialized == every, f"{asset}: missing {sorted(every - materialized)}"


def test_every_asset_has_a_group_and_the_scope_tables_their_upstream() -> None:
    graph = definitions().resolve_asset_graph()
    groups = {k.to_user_string(): graph.get(k).group_name for k in graph.get_all_asset_keys()}
    assert [name for name, group in groups.items() if group in (None, "default")] == []
    for suite, cells, judgments in (("contractscrub", "scrub_cells", None),
                                    ("insufficiency", "insufficiency_cells", "int_insufficiency_judgments")):
        for table in (f"{suite}_scope", f"{suite}_scope_models", f"{suite}_scope_runs", f"{suite}_scope_items"):
            node = graph.get(AssetKey(table))
            assert node.group_name == "scope"
            assert {p.to_user_string() for p in node.parent_keys} == {cells, *([judgments] if judgments else [])}
    # each suite job partitions its stages over its own dimensions
    assert graph.get(AssetKey("scrub_findings")).partitions_def is partition_set("scrub_partition").multi
    assert graph.get(AssetKey("extractions")).partitions_def is partition_set("audit_partition").multi


def test_the_registry_sensor_offers_an_unaudited_model_under_test_never_a_judge(tmp_path: Path) -> None:
    home = Home.resolve(tmp_path).ensure()
    add_model(home, ModelSpec(name="new-model", provider="offline", model_id="lexical"))
    add_model(home, ModelSpec(name="a-judge", provider="offline", model_id="rubric", role="judge"))
    with instance_for_test() as instance:
        def tick() -> list[tuple[str, str, list[str]]]:
            result = model_registry_sensor(build_sensor_context(instance=instance,
                                                                resources={"lhl": LhlHome(path=str(tmp_path))}))
            return [(type(r).__name__, r.partitions_def_name, list(r.partition_keys))
                    for r in result.dynamic_partitions_requests]

        assert tick() == [("AddDynamicPartitionsRequest", "model", ["new-model"])]
        instance.add_dynamic_partitions("model", ["new-model"])
        assert tick() == []
        # audited in another suite, never in the clause audit: the offer is withdrawn
        instance.add_dynamic_partitions("scrub_partition.model", ["new-model"])
        assert tick() == [("DeleteDynamicPartitionsRequest", "model", ["new-model"])]
