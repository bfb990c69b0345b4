"""The asset graph, materialized by real Dagster on a temporary instance."""

import pytest
from dagster import DagsterInstance, Definitions, materialize

from assets.audit import extractions, judge_verdicts
from assets.corpus import clause_taxonomy, contracts, oracle
from assets.metrics import sql_model_assets
from assets.partitions import audit_key
from checks.outcomes import all_checks
from lhl_platform.corpus.demo import DEMO_DIR, load_demo_corpus
from lhl_platform.domain.models import ModelSpec
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.importer import import_outcomes
from lhl_platform.registry import add_model
from orchestration.definitions import defs
from resources import LhlHome
from tests.helpers import outcome, write_outcomes

ASSETS = [contracts, oracle, clause_taxonomy, extractions, judge_verdicts, sql_model_assets, *all_checks]
QUIET = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}


@pytest.fixture
def instance():
    with DagsterInstance.ephemeral() as inst:
        yield inst


def _checks(result):
    return {(e.asset_key.to_user_string(), e.check_name): e for e in result.get_asset_check_evaluations()}


def test_definitions_load_with_jobs_schedules_and_sensors():
    Definitions.validate_loadable(defs)
    repo = defs.get_repository_def()
    assert {"audit_partition", "metrics", "corpus"} <= {j.name for j in repo.get_all_jobs()}
    assert {s.name for s in repo.sensor_defs} == {"model_registry_sensor", "recurring_audit_sensor"}
    assert [s.name for s in repo.schedule_defs] == ["nightly_metrics_schedule"]


def test_graph_materializes_partition_by_partition_with_checks(tmp_path, instance):
    home = Home.resolve(tmp_path / "home").ensure()
    resources = {"lhl": LhlHome(path=str(home.root))}
    corpus = materialize([contracts, oracle, clause_taxonomy], instance=instance, resources=resources,
                         run_config={**QUIET, "ops": {"contracts": {"config": {"path": str(DEMO_DIR)}}}})
    assert corpus.success
    add_model(home, ModelSpec(name="lexical", provider="offline", model_id="lexical"))
    instance.add_dynamic_partitions("model", ["lexical"])
    instance.add_dynamic_partitions("run", ["1"])
    part = materialize(ASSETS, selection=[extractions, judge_verdicts], partition_key=audit_key("lexical", 1),
                       instance=instance, resources=resources, run_config=QUIET)
    assert part.success
    meta = part.asset_materializations_for_node("extractions")[0].metadata
    assert meta["instances_recorded"].value == 41 * len(load_demo_corpus().contracts)
    checks = _checks(part)
    assert checks[("extractions", "rows_complete")].passed
    assert checks[("judge_verdicts", "every_tp_judged")].passed
    metrics = materialize(ASSETS, selection=[sql_model_assets, *all_checks], instance=instance, resources=resources,
                          run_config=QUIET)
    assert metrics.success
    assert {k.to_user_string() for k in metrics.asset_materializations_for_node("sql_models")
            for k in [k.asset_key]} >= {"instance_outcomes", "leaderboard", "rdi", "composite_ranks", "missing_rows"}
    outcome_checks = _checks(metrics)
    assert all(e.passed for e in outcome_checks.values()), {k: e.description for k, e in outcome_checks.items()}
    assert ("instance_outcomes", "great_expectations_suite") in outcome_checks
    status = instance.get_status_by_partition(extractions.key, partition_keys=[audit_key("lexical", 1)],
                                              partitions_def=extractions.partitions_def)
    assert status is not None


def test_dropped_rows_fail_the_completeness_check_naming_contracts(tmp_path, instance):
    home = Home.resolve(tmp_path / "home").ensure()
    rows = []
    for contract in ("c-complete", "c-gappy", "c-empty-ish"):
        for run in (1, 2):
            for clause in CLAUSE_TYPES:
                dropped = (contract == "c-gappy" and run == 1 and clause == "Parties") or (
                    contract == "c-empty-ish" and clause in ("Parties", "Governing Law"))
                if not dropped:
                    rows.append(outcome("byo", run, contract, clause, "TN"))
    import_outcomes(home, write_outcomes(tmp_path / "o.csv", rows))
    result = materialize(ASSETS, selection=[sql_model_assets, *all_checks], instance=instance,
                         resources={"lhl": LhlHome(path=str(home.root))}, run_config=QUIET, raise_on_error=False)
    check = _checks(result)[("instance_outcomes", "rows_complete")]
    assert not check.passed
    meta = {k: v.value for k, v in check.metadata.items()}
    assert meta["missing_rows"] == 1 + 4
    assert "c-empty-ish" in meta["persistent_contracts"] and "c-gappy" in meta["any_run_contracts"]
    assert "c-complete" not in meta["missing_by_contract"]
    assert "c-gappy" in check.description
