"""The asset graph, materialized by real Dagster on a temporary instance, through the Definitions' own jobs."""

import pytest
from dagster import AssetKey, DagsterInstance, Definitions

from assets.partitions import audit_key
from lhl_platform.clause.importer import import_outcomes
from lhl_platform.corpus.demo import DEMO_DIR, load_demo_corpus
from lhl_platform.domain.models import ModelSpec
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.registry import add_model
from orchestration.definitions import defs
from orchestration.launch import LOCAL_INSTANCE_YAML, QUIET
from resources import LhlHome
from tests.helpers import outcome, write_outcomes

QUIET_ERRORS = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}


@pytest.fixture
def instance():
    with DagsterInstance.ephemeral() as inst:
        yield inst


def _checks(result):
    return {(e.asset_key.to_user_string(), e.check_name): e for e in result.get_asset_check_evaluations()}


def _run(job_name, home, instance, run_config=None, **kwargs):
    return defs.resolve_job_def(job_name).execute_in_process(
        run_config={**QUIET_ERRORS, **(run_config or {})}, instance=instance,
        resources={"lhl": LhlHome(path=str(home.root))}, raise_on_error=False, **kwargs)


def test_definitions_load_with_jobs_schedules_and_sensors():
    Definitions.validate_loadable(defs)
    repo = defs.get_repository_def()
    assert {"audit_partition", "metrics", "corpus", "debate_partition"} <= {j.name for j in repo.get_all_jobs()}
    assert {s.name for s in repo.sensor_defs} == {
        "model_registry_sensor", "recurring_audit_sensor", "metrics_refresh_sensor", "active_corpus_sensor",
        "profiles_automation"}
    assert [s.name for s in repo.schedule_defs] == ["nightly_metrics_schedule"]


def test_lineage_runs_through_the_partitioned_profiles_to_the_marts_and_drift():
    graph = defs.resolve_asset_graph()

    def parents(name):
        return {k.to_user_string() for k in graph.get(AssetKey(name)).parent_keys}

    assert {"contracts", "oracle"} <= parents("extractions")
    assert "extractions" in parents("judge_verdicts")
    assert parents("model_profiles") == {"extractions", "judge_verdicts"}
    assert "model_profiles" in parents("stg_extractions") and "model_profiles" in parents("stg_verdicts")
    assert "clause_monitor" in parents("model_drift")
    for name in ("extractions", "judge_verdicts", "model_profiles"):
        assert graph.get(AssetKey(name)).partitions_def == defs.resolve_job_def("audit_partition").partitions_def
    for name in ("debate_outcomes", "debate_verdicts"):  # the models debated, not every model audited
        assert graph.get(AssetKey(name)).partitions_def == defs.resolve_job_def("debate_partition").partitions_def
    assert defs.resolve_job_def("debate_partition").partitions_def != defs.resolve_job_def(
        "audit_partition").partitions_def
    for name in ("leaderboard", "rdi", "composite_ranks", "model_drift"):
        assert graph.get(AssetKey(name)).partitions_def is None
    selected = {k.to_user_string() for k in defs.resolve_job_def("audit_partition").asset_layer.selected_asset_keys}
    assert selected == {"extractions", "judge_verdicts", "model_profiles"}


def test_the_local_instance_file_matches_the_deployment_description():
    from pathlib import Path

    assert (Path(__file__).parents[1] / "deployments" / "local" / "dagster.yaml").read_text() == LOCAL_INSTANCE_YAML
    # lhl's own runs keep Dagster's console to critical messages: a failure is one line, warnings the stages print
    assert QUIET["loggers"]["console"]["config"]["log_level"] == "CRITICAL"


def test_graph_materializes_partition_by_partition_with_checks(tmp_path, instance):
    home = Home.resolve(tmp_path / "home").ensure()
    corpus = _run("corpus", home, instance, {"ops": {"contracts": {"config": {"path": str(DEMO_DIR)}}}})
    assert corpus.success
    add_model(home, ModelSpec(name="lexical", provider="offline", model_id="lexical"))
    instance.add_dynamic_partitions("model", ["lexical"])
    instance.add_dynamic_partitions("run", ["1"])
    part = _run("audit_partition", home, instance, partition_key=audit_key("lexical", 1))
    assert part.success
    meta = part.asset_materializations_for_node("extractions")[0].metadata
    assert meta["instances_recorded"].value == 41 * len(load_demo_corpus().contracts)
    # the stream's head is anchored in Dagster's record too: a later rollback of the stream contradicts it
    from lhl_platform.events.log import stream_head

    assert (meta["stream_events"].value, meta["stream_head"].value) == stream_head(home.events, meta["stream"].value)
    profile = part.asset_materializations_for_node("model_profiles")[0].metadata
    assert profile["n"].value == 41 * len(load_demo_corpus().contracts) and profile["judge"].value == "rubric"
    checks = _checks(part)
    assert checks[("extractions", "rows_complete")].passed
    assert checks[("extractions", "rows_complete")].metadata["nominal_instances"].value == 41 * 12
    assert checks[("judge_verdicts", "every_tp_judged")].passed
    metrics = _run("metrics", home, instance)
    assert metrics.success
    assert {e.asset_key.to_user_string() for e in metrics.get_asset_materialization_events()} >= {
        "instance_outcomes", "leaderboard", "rdi", "composite_ranks", "missing_rows", "model_drift"}
    outcome_checks = {k: e for k, e in _checks(metrics).items() if k[0] == "instance_outcomes"}
    assert all(e.passed for e in outcome_checks.values()), {k: e.description for k, e in outcome_checks.items()}
    assert ("instance_outcomes", "great_expectations_suite") in outcome_checks


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
    result = _run("metrics", home, instance)
    check = _checks(result)[("instance_outcomes", "rows_complete")]
    assert not check.passed
    meta = {k: v.value for k, v in check.metadata.items()}
    assert meta["missing_rows"] == 1 + 4
    assert "c-empty-ish" in meta["persistent_contracts"] and "c-gappy" in meta["any_run_contracts"]
    assert "c-complete" not in meta["missing_by_contract"]
    assert "c-gappy" in check.description
