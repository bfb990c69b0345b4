"""The gold versions in Dagster's lineage: each suite with reviewable gold has a `<suite>_gold_versions` asset,
upstream of the stage that scores against the gold and of the SQL that reads the review stream, whose
materialization lists every version. Materialized with real Dagster (the suite's items job, executed in process
as `lhl` executes it) before and after a review import of the small self-built ContractScrub set of
tests/test_review.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from dagster import AssetKey, DagsterInstance

from lhl_platform.home import Home
from orchestration.definitions import definitions
from orchestration.launch import execute, instance_for
from orchestration.runs import job_launch
from tests.test_review import ITEMS, findings_file, lhl, read_csv, write_csv

ASSET = AssetKey("scrub_gold_versions")


def _materialize(home: Home, instance: DagsterInstance) -> tuple[dict, str | None]:
    """The items job run once; the gold asset's latest materialization: (metadata as plain values, data version)."""
    execute(home, instance, job_launch(home, "scrub_item_set", "test"))
    event = instance.get_latest_materialization_event(ASSET)
    assert event is not None and event.asset_materialization is not None
    done = event.asset_materialization
    metadata = {k: getattr(v, "value", v) for k, v in done.metadata.items()}
    return metadata, done.tags.get("dagster/data_version") if done.tags else None


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    from lhl_platform.scrub.items import export_items

    root = tmp_path_factory.mktemp("gold-lineage")
    home = Home.resolve(root / "home").ensure()
    (root / "set.jsonl").write_bytes(export_items(ITEMS))
    assert lhl(home, "ingest", "contractscrub", str(root / "set.jsonl")) == 0
    assert lhl(home, "import", "findings", str(findings_file(root / "findings.jsonl"))) == 0
    instance = instance_for(home)
    try:
        before = _materialize(home, instance)
        again = _materialize(home, instance)
        assert lhl(home, "review", "export", "--suite", "contractscrub", "--out", str(root / "sheet")) == 0
        rows = read_csv(root / "sheet" / "decisions.csv")
        edits = [r for r in rows if r["kind"] == "edit"]
        for r in edits:  # reject the first edit, accept the rest: the whole sheet's edits decided
            r["decision"] = "reject" if r is edits[0] else "accept"
        assert lhl(home, "review", "import", str(write_csv(root / "decided.csv", rows)), "--reviewer", "ann") == 0
        after = _materialize(home, instance)
    finally:
        instance.dispose()
    return {"before": before, "again": again, "after": after, "edits": len(edits), "rows": len(rows)}


def test_the_gold_asset_lists_versions_1_and_2_after_a_review_import(reviewed: dict) -> None:
    metadata, version = reviewed["after"]
    assert metadata["gold_versions"] == 2 and metadata["latest_gold_version"] == 2
    assert metadata["gold_version_1"].startswith("ingested from set.jsonl; digest ")
    two = metadata["gold_version_2"]
    assert two.startswith(f"review by ann of version 1: {reviewed['edits']} of {reviewed['rows']} rows reviewed by 1 "
                          f"reviewer(s) (ann); {reviewed['edits']} decisions (events ")
    assert "; 1 change the gold; digest " in two
    assert metadata["reviewers"] == "ann" and metadata["decisions"] == reviewed["edits"]
    table = metadata["versions"]
    assert "| 1 | ingested from set.jsonl | - |" in table and "| 2 | review by ann of version 1 |" in table
    # version 1's digest is the same before and after: the review made a version, it did not rewrite one
    before, before_version = reviewed["before"]
    assert before["gold_versions"] == 1 and "gold_version_2" not in before
    assert before["gold_version_1"] == metadata["gold_version_1"]
    assert before["latest_digest"] != metadata["latest_digest"]
    # the data version is the digest of the versions: unchanged by a second materialization, new with version 2
    assert before_version is not None and reviewed["again"][1] == before_version != version


def test_the_gold_asset_is_upstream_of_the_scores_and_the_gold_version_sql() -> None:
    graph = definitions().resolve_asset_graph()
    node = graph.get(ASSET)
    assert {p.to_user_string() for p in node.parent_keys} == {"scrub_items"}
    assert ASSET in graph.get(AssetKey("scrub_scores")).parent_keys
    for model in ("int_scrub_gold_versions", "int_scrub_gold", "scrub_gold", "scrub_units"):
        assert ASSET in graph.get_ancestor_asset_keys(AssetKey(model)), model
    bench = AssetKey("insufficiency_gold_versions")
    assert {p.to_user_string() for p in graph.get(bench).parent_keys} == {"insufficiency_items"}
    assert bench in graph.get_ancestor_asset_keys(AssetKey("int_insufficiency_gold_versions"))


def test_the_domain_stage_needs_no_dagster(tmp_path: Path) -> None:
    """The stage is the suite's own function of a home: a home with no item set is one clear error."""
    from lhl_platform.scrub.lineage import scrub_gold_versions
    from lhl_platform.suites.contract import NoConfig, StageContext

    home = Home.resolve(tmp_path / "home").ensure()
    with pytest.raises(Exception) as raised:
        scrub_gold_versions(StageContext(home=home, model=None, run=None, config=NoConfig()))
    assert "\n" not in str(raised.value) and str(raised.value)


def test_insufficiency_gold_versions_list_a_rejected_variant_and_a_dropped_element(tmp_path: Path) -> None:
    """The InsufficiencyBench stage on the three queries of tests/test_review.py: version 2 made by one reviewer's
    sheet with a variant rejected and an element marked not_required."""
    import json

    from lhl_platform.insufficiency.lineage import insufficiency_gold_versions
    from lhl_platform.suites.contract import NoConfig, StageContext
    from tests.test_review import QUERIES

    home = Home.resolve(tmp_path / "home").ensure()
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    assert lhl(home, "ingest", "insufficiency", str(items), "--name", "lineage-test") == 0

    def listed() -> dict:
        result = insufficiency_gold_versions(StageContext(home=home, model=None, run=None, config=NoConfig(),
                                                          log=lambda _: None))
        return {**result.metadata, "data_version": result.data_version}

    before = listed()
    assert before["gold_versions"] == 1
    assert before["gold_version_1"].startswith("ingested as lineage-test (external) from ")
    assert lhl(home, "review", "export", "--suite", "insufficiency", "--out", str(tmp_path / "sheet")) == 0
    rows = read_csv(tmp_path / "sheet" / "decisions.csv")
    variant = next(r for r in rows if r["kind"] == "variant")
    element = next(r for r in rows if r["kind"] == "element" and r["item_id"] != variant["item_id"])
    variant["decision"], element["decision"] = "reject", "not_required"
    assert lhl(home, "review", "import", str(write_csv(tmp_path / "d.csv", rows)), "--reviewer", "bo") == 0
    after = listed()
    assert after["gold_versions"] == 2 and after["gold_version_1"] == before["gold_version_1"]
    assert after["gold_version_2"].startswith(f"review by bo of version 1: 2 of {len(rows)} rows reviewed by 1 "
                                              "reviewer(s) (bo); 2 decisions (events ")
    assert "; 2 change the gold; " in after["gold_version_2"]
    assert after["data_version"] != before["data_version"] and after["latest_digest"] != before["latest_digest"]
