"""`lhl`'s processes open a home's default SQLite event log with its connections kept open
(`orchestration/event_log_storage.py`): the same files, so a standard Dagster instance (the UI's, the daemon's)
open on the same home at the same time reads what they write and they read what it writes; a `dagster.yaml`
that configures its own storage is used as written."""

from __future__ import annotations

from pathlib import Path

from dagster import AssetKey, AssetMaterialization, DagsterInstance, materialize

from lhl_platform.home import Home
from orchestration.event_log_storage import OPEN_SHARDS, PooledSqliteEventLogStorage
from orchestration.launch import instance_for


def _materialized(instance: DagsterInstance, key: str) -> list[int]:
    records = instance.fetch_materializations(AssetKey(key), limit=100).records
    return sorted(int(r.asset_materialization.metadata["n"].value) for r in records  # type: ignore[union-attr]
                  if r.asset_materialization is not None)


def _report(instance: DagsterInstance, key: str, n: int) -> None:
    instance.report_runless_asset_event(AssetMaterialization(key, metadata={"n": n}))


def test_the_cli_instance_and_a_standard_one_share_the_home_both_ways(tmp_path: Path) -> None:
    home = Home.resolve(str(tmp_path / "home"))
    pooled = instance_for(home)
    standard = DagsterInstance.from_config(str(home.dagster_dir))
    try:
        assert isinstance(pooled.event_log_storage, PooledSqliteEventLogStorage)
        assert not isinstance(standard.event_log_storage, PooledSqliteEventLogStorage)
        for n in range(3):  # interleaved, both open: each sees the other's writes at once
            _report(pooled, "a", n)
            _report(standard, "a", 10 + n)
            assert _materialized(standard, "a") == _materialized(pooled, "a") == sorted(
                [*range(n + 1), *range(10, 11 + n)])
    finally:
        pooled.dispose()
        standard.dispose()
    reopened = DagsterInstance.from_config(str(home.dagster_dir))
    try:
        assert _materialized(reopened, "a") == [0, 1, 2, 10, 11, 12]
    finally:
        reopened.dispose()


def test_runs_of_more_shards_than_it_keeps_open_are_all_recorded(tmp_path: Path) -> None:
    from dagster import asset

    @asset
    def one() -> int:
        return 1

    home = Home.resolve(str(tmp_path / "home"))
    instance = instance_for(home)
    try:
        runs = [materialize([one], instance=instance).run_id for _ in range(OPEN_SHARDS + 3)]
        storage = instance.event_log_storage
        assert isinstance(storage, PooledSqliteEventLogStorage)
        assert len(storage._engines) <= OPEN_SHARDS  # the oldest shards' engines were disposed
        steps = [sum(1 for e in instance.all_logs(r) if e.dagster_event and e.dagster_event.is_step_success)
                 for r in runs]
        assert steps == [1] * len(runs)  # an evicted shard reopens when read
    finally:
        instance.dispose()
    standard = DagsterInstance.from_config(str(home.dagster_dir))
    try:
        assert len(standard.fetch_materializations(AssetKey("one"), limit=100).records) == OPEN_SHARDS + 3
    finally:
        standard.dispose()


def test_a_wipe_closes_the_connections_before_removing_the_shards(tmp_path: Path) -> None:
    home = Home.resolve(str(tmp_path / "home"))
    instance = instance_for(home)
    try:
        _report(instance, "a", 1)
        instance.wipe()
        assert _materialized(instance, "a") == []
        _report(instance, "a", 2)
        assert _materialized(instance, "a") == [2]
    finally:
        instance.dispose()


def test_a_storage_the_yaml_configures_is_used_as_written(tmp_path: Path) -> None:
    home = Home.resolve(str(tmp_path / "home")).ensure()
    (home.dagster_dir / "dagster.yaml").write_text(
        "telemetry:\n  enabled: false\nstorage:\n  sqlite:\n"
        f"    base_dir: {tmp_path / 'elsewhere'}\n")
    instance = instance_for(home)
    try:
        assert not isinstance(instance.event_log_storage, PooledSqliteEventLogStorage)
        _report(instance, "a", 1)
    finally:
        instance.dispose()
    assert (tmp_path / "elsewhere" / "history" / "runs" / "index.db").exists()
