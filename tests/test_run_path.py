"""One run path: the CLI, the sensors and job backfills launch the Definitions' jobs with the same run config
and tags, built from the model's registered audit settings; after any partition run the marts, checks and
drift are brought up to date; a new model's audit computes only its own partitions plus the marts."""

import pytest
from dagster import AssetKey, DagsterRunStatus, RunsFilter, build_sensor_context

from assets.partitions import audit_key
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.corpus.store import save_corpus
from lhl_platform.domain.models import ModelSpec
from lhl_platform.home import Home
from lhl_platform.registry import add_model, set_primary_judge
from lhl_platform.suites import get_suite
from orchestration import launch
from orchestration.automation import metrics_refresh_sensor, recurring_audit_sensor
from orchestration.cli.audit import run_audit
from orchestration.definitions import defs
from orchestration.runs import AUDIT_JOB, LAUNCHED_BY_TAG, Launch, backfill_run_config, backfill_tags, partition_launch
from resources import LhlHome

SETTINGS = {"monitor": True, "audit": {"judge": "overlap-judge", "contracts": 3, "cadence_hours": 24}}


def _shared(tags):
    return {k: v for k, v in tags.items() if k != LAUNCHED_BY_TAG}


def _sensor(sensor, instance, home, cursor=None):
    context = build_sensor_context(instance=instance, cursor=cursor, resources={"lhl": LhlHome(path=str(home.root))},
                                   definitions=defs)
    return sensor(context)


def _as_launch(request):
    return Launch(job=request.job_name, run_config=dict(request.run_config), tags=dict(request.tags),
                  partition_key=request.partition_key, what=request.run_key)


def _storage_ids(instance, key, partition=None):
    records = instance.fetch_materializations(key, limit=1000).records
    return [r.storage_id for r in records if partition is None or r.partition_key == partition]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    from lhl_platform.corpus.cuad import load_master_layout

    home = Home.resolve(tmp_path_factory.mktemp("run-path")).ensure()
    save_corpus(home, load_master_layout(DEMO_DIR), source=str(DEMO_DIR))
    add_model(home, ModelSpec(name="overlap-judge", provider="offline", model_id="overlap", role="judge"))
    add_model(home, ModelSpec(name="prod", provider="offline", model_id="simulated:omitter", params=SETTINGS))
    set_primary_judge(home, "overlap-judge")  # the marts count one judge's verdicts: the one prod is audited with
    # the CLI's path, defaults from the settings
    assert run_audit(home, get_suite("clause"), ["prod"], [1], say=lambda _: None) == 0
    return home


def test_a_sensor_tick_for_a_monitored_model_with_an_llm_judge_matches_a_cli_launch(tmp_path, monkeypatch):
    home = Home.resolve(tmp_path).ensure()
    add_model(home, ModelSpec(name="gemini-judge", provider="gemini", model_id="gemini-2.5-flash", role="judge"))
    add_model(home, ModelSpec(name="gpt", provider="openai", model_id="gpt-5.2",
                              params={"monitor": True, "audit": {"judge": "gemini-judge", "subset": "s50"}}))
    instance = launch.instance_for(home)
    try:
        instance.add_dynamic_partitions("run", ["1", "2"])
        result = _sensor(recurring_audit_sensor, instance, home)
    finally:
        instance.dispose()
    (request,) = result.run_requests
    assert request.job_name == AUDIT_JOB and request.partition_key == audit_key("gpt", 3)
    assert request.run_config["ops"]["judge_verdicts"]["config"]["judge"] == "gemini-judge"
    assert request.run_config["ops"]["extractions"]["config"] == {"contracts": None, "subset": "s50"}
    cli = partition_launch(home, AUDIT_JOB, "gpt", 3, "cli")  # what `lhl audit --models gpt --runs 3` launches
    assert request.run_config == cli.run_config
    assert _shared(request.tags) == _shared(cli.tags) == {"lhl/provider": "openai", "lhl/model": "gpt", "lhl/run": "3"}
    assert (request.tags[LAUNCHED_BY_TAG], cli.tags[LAUNCHED_BY_TAG]) == ("sensor", "cli")
    # A job backfill from the UI asks the job's partitioned config: the same config and tags.
    monkeypatch.setenv("LHL_HOME", str(home.root))
    assert backfill_run_config(str(audit_key("gpt", 3))) == cli.run_config
    assert backfill_tags(str(audit_key("gpt", 3))) == _shared(cli.tags)


def test_cli_runs_are_the_definitions_jobs_with_the_registered_settings(home):
    instance = launch.instance_for(home)
    try:
        (record,) = instance.get_run_records(RunsFilter(job_name=AUDIT_JOB))
    finally:
        instance.dispose()
    run = record.dagster_run
    assert run.status == DagsterRunStatus.SUCCESS
    assert _shared({k: v for k, v in run.tags.items() if k.startswith("lhl/")}) == {
        "lhl/provider": "offline", "lhl/model": "prod", "lhl/run": "1"}
    assert run.run_config["ops"] == partition_launch(home, AUDIT_JOB, "prod", 1, "cli").run_config["ops"]
    assert run.run_config["ops"]["judge_verdicts"]["config"]["judge"] == "overlap-judge"


def test_after_a_sensor_launched_run_the_marts_and_drift_are_brought_up_to_date(home):
    instance = launch.instance_for(home)
    try:
        tick = _sensor(recurring_audit_sensor, instance, home)
        (request,) = tick.run_requests
        assert request.run_config["ops"]["judge_verdicts"]["config"]["judge"] == "overlap-judge"
        for add in tick.dynamic_partitions_requests:
            instance.add_dynamic_partitions(add.partitions_def_name, list(add.partition_keys))
        # The daemon launches what the sensor requested: the Definitions' job, with that config and those tags.
        launch.execute(home, instance, _as_launch(request))
        partition = str(request.partition_key)
        landed = max(_storage_ids(instance, AssetKey("model_profiles"), partition))
        assert max(_storage_ids(instance, AssetKey("model_drift"))) < landed
        # Nobody asks: the refresh sensor sees partitions newer than the marts and requests the metrics job.
        refresh = _sensor(metrics_refresh_sensor, instance, home)
        (metrics,) = refresh.run_requests
        rebuilt = launch.execute(home, instance, _as_launch(metrics))
        for key in ("leaderboard", "composite_ranks", "rdi", "model_drift"):
            assert max(_storage_ids(instance, AssetKey(key))) > landed, key
        checks = instance.event_log_storage.get_latest_asset_check_execution_by_key(
            [c for c in defs.resolve_asset_graph().asset_check_keys if c.asset_key == AssetKey("model_drift")])
        assert {c.name for c in checks} == {"same_served_model"}
        assert all(e.run_id == rebuilt.run_id for e in checks.values())
        # Up to date now: the next tick does nothing.
        assert _sensor(metrics_refresh_sensor, instance, home).run_requests == []
        # And the recurring sensor waits for the model's cadence (24 hours) before the next round.
        again = _sensor(recurring_audit_sensor, instance, home, cursor=tick.cursor)
        assert not again.run_requests and "due" in again.skip_reason.skip_message
    finally:
        instance.dispose()


def test_auditing_a_new_model_computes_only_its_partitions_and_the_cross_model_marts(home):
    add_model(home, ModelSpec(name="newcomer", provider="offline", model_id="lexical",
                              params={"audit": {"contracts": 2}}))
    instance = launch.instance_for(home)
    try:
        before = instance.event_log_storage.get_maximum_record_id() or 0
    finally:
        instance.dispose()
    assert run_audit(home, get_suite("clause"), ["newcomer"], [1], say=lambda _: None) == 0
    instance = launch.instance_for(home)
    try:
        def since(key):
            return [r for r in instance.fetch_materializations(AssetKey(key), limit=1000).records
                    if r.storage_id > before]

        for key in ("extractions", "judge_verdicts", "model_profiles"):
            assert {r.partition_key for r in since(key)} == {str(audit_key("newcomer", 1))}, key
        for key in ("leaderboard", "rdi", "composite_ranks", "model_drift"):
            assert len(since(key)) == 1, key
        profile = since("model_profiles")[0].asset_materialization
        assert profile is not None and profile.metadata["n"].value == 2 * 41
    finally:
        instance.dispose()
    assert (home.root / "profiles" / "model=newcomer" / "run=1" / "typed_profiles.parquet").exists()
