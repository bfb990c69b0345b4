"""The production shape, exercised: a throwaway PostgreSQL server holds Dagster's run, event and schedule
storage; `lhl daemon` runs the daemon with the queued run coordinator capped at one run per provider; three
offline models are queued with `lhl audit --queue` under one provider tag. At most one runs at a time, all
succeed, and the daemon's refresh sensor then rebuilds the marts and drift. The Kubernetes run launcher's
config is checked against Dagster's own schema."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PRODUCTION = ROOT / "deployments" / "production" / "dagster.yaml"
MODELS = ("alpha", "beta", "gamma")


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def postgres():
    """A throwaway PostgreSQL server on 127.0.0.1 (as the `postgres` user when we are root)."""
    pytest.importorskip("dagster_postgres", reason="the production extra (dagster-postgres) is not installed")
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries not found (initdb); `.ci/run` installs them with apt-get")
    user = None
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no `postgres` user to run the PostgreSQL server as")
    root = Path(tempfile.mkdtemp(prefix="lhl-pg-", dir="/tmp"))
    root.chmod(0o755)
    data, port = root / "data", _free_port()
    if user is not None:
        os.chown(root, user.pw_uid, user.pw_gid)
    as_user = {"user": user.pw_uid, "group": user.pw_gid} if user is not None else {}
    run = {"cwd": root, "check": True, "capture_output": True, **as_user}
    try:
        subprocess.run([bindir / "initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"],
                       **run)
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        subprocess.run([bindir / "pg_ctl", "-D", data, "-o", options, "-l", root / "server.log", "-w", "start"], **run)
        import psycopg2

        con = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
        con.autocommit = True
        con.cursor().execute("create database dagster")
        con.close()
        yield {"DAGSTER_PG_HOST": "127.0.0.1", "DAGSTER_PG_PORT": str(port), "DAGSTER_PG_USER": "postgres",
               "DAGSTER_PG_PASSWORD": "", "DAGSTER_PG_DB": "dagster"}
    finally:
        subprocess.run([bindir / "pg_ctl", "-D", data, "-m", "immediate", "stop"], cwd=root, capture_output=True,
                       **as_user)
        shutil.rmtree(root, ignore_errors=True)


def _local_production_config(limit: int = 1) -> dict:
    """The production instance with the run launcher left at Dagster's default (runs in local processes
    instead of pods) and the per-provider limit at `limit`; storage, queue and backfills as deployed."""
    config = yaml.safe_load(PRODUCTION.read_text())
    config.pop("run_launcher")
    config["run_coordinator"]["config"] = {"dequeue_interval_seconds": 1}  # a test's queue: no 5 s waits
    config["concurrency"]["runs"]["tag_concurrency_limits"][0]["limit"] = limit
    return config


def _overlaps(intervals: list[tuple[float, float]]) -> int:
    """The largest number of [start, end] intervals that hold at one moment."""
    points = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])
    depth = most = 0
    for _, step in points:
        depth += step
        most = max(most, depth)
    return most


def test_kubernetes_run_launcher_config_matches_dagsters_schema():
    pytest.importorskip("dagster_k8s", reason="the production extra (dagster-k8s) is not installed")
    from dagster._config import validate_config
    from dagster._core.instance.config import dagster_instance_config
    from dagster._core.run_coordinator import QueuedRunCoordinator
    from dagster_k8s import K8sRunLauncher
    from dagster_postgres import PostgresEventLogStorage

    config = yaml.safe_load(PRODUCTION.read_text())
    launcher = config["run_launcher"]
    assert (launcher["module"], launcher["class"]) == ("dagster_k8s", "K8sRunLauncher")
    result = validate_config(K8sRunLauncher.config_type(), launcher["config"])
    assert result.success, [e.message for e in result.errors]
    broken = validate_config(K8sRunLauncher.config_type(), {**launcher["config"], "job_namespce": "typo"})
    assert not broken.success  # the schema really is checked
    assert validate_config(QueuedRunCoordinator.config_type(), config["concurrency"]["runs"]).success
    assert validate_config(PostgresEventLogStorage.config_type(), config["storage"]["postgres"]).success
    instance_config, _ = dagster_instance_config(str(PRODUCTION.parent))  # the whole file, as Dagster loads it
    assert instance_config["run_launcher"]["class"] == "K8sRunLauncher"


def test_postgres_daemon_queues_three_audits_one_provider_at_a_time(tmp_path, postgres, monkeypatch):
    from dagster import AssetKey, DagsterInstance, DagsterRunStatus, RunsFilter

    from lhl_platform.corpus.cuad import load_master_layout
    from lhl_platform.corpus.demo import DEMO_DIR
    from lhl_platform.corpus.store import save_corpus
    from lhl_platform.domain.models import ModelSpec
    from lhl_platform.home import Home
    from lhl_platform.registry import add_model
    from orchestration.cli import main

    for key, value in postgres.items():
        monkeypatch.setenv(key, value)
    home = Home.resolve(tmp_path / "home").ensure()
    (home.dagster_dir / "dagster.yaml").write_text(yaml.safe_dump(_local_production_config(limit=1)))
    save_corpus(home, load_master_layout(DEMO_DIR), source=str(DEMO_DIR))
    for name, model_id in zip(MODELS, ("lexical", "simulated:omitter", "simulated:inventor"), strict=True):
        add_model(home, ModelSpec(name=name, provider="offline", model_id=model_id,
                                  params={"audit": {"contracts": 3}}))

    log = (tmp_path / "daemon.log").open("w")
    env = {**os.environ, **postgres, "LHL_REFRESH_TICK_SECONDS": "1"}  # the refresh sensor ticks every second
    daemon = subprocess.Popen([sys.executable, "-m", "orchestration.cli", "--home", str(home.root), "daemon"],
                              cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    instance = DagsterInstance.from_config(str(home.dagster_dir))
    try:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        assert type(instance.event_log_storage).__name__ == "PostgresEventLogStorage"
        assert type(instance.schedule_storage).__name__ == "PostgresScheduleStorage"
        assert main(["--home", str(home.root), "audit", "--queue", "--models", ",".join(MODELS), "--runs", "1"]) == 0
        audits = RunsFilter(job_name="audit_partition")
        most_at_once, deadline, records = 0, time.monotonic() + 240, []
        while time.monotonic() < deadline:
            records = list(instance.get_run_records(audits))
            running = [r for r in records if r.dagster_run.status in (DagsterRunStatus.STARTING,
                                                                       DagsterRunStatus.STARTED)]
            most_at_once = max(most_at_once, len(running))
            drift = instance.get_latest_materialization_event(AssetKey("model_drift"))
            if len(records) == 3 and all(r.dagster_run.is_finished for r in records) and drift is not None:
                break
            assert daemon.poll() is None, "the daemon exited early"
            time.sleep(0.25)
        log.flush()
        history = (tmp_path / "daemon.log").read_text()[-3000:]
        assert len(records) == 3, history
        assert all(r.dagster_run.status == DagsterRunStatus.SUCCESS for r in records), history
        assert {r.dagster_run.tags["lhl/provider"] for r in records} == {"offline"}
        assert {r.dagster_run.tags["lhl/model"] for r in records} == set(MODELS)
        assert most_at_once <= 1
        assert _overlaps([(r.start_time, r.end_time) for r in records]) == 1  # never two at once
        # Nobody asked for the marts: the daemon's refresh sensor rebuilt them after the last partition.
        (metrics,) = [r for r in instance.get_run_records(RunsFilter(job_name="metrics"))]
        assert metrics.dagster_run.tags.get("dagster/sensor_name") == "metrics_refresh_sensor"
        assert metrics.start_time >= max(r.end_time for r in records)
    finally:
        instance.dispose()
        with contextlib.suppress(ProcessLookupError):
            daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            daemon.kill()
        log.close()
