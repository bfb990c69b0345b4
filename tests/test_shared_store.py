"""The shared event store: segments in S3-compatible object storage, commits in PostgreSQL.

A real PostgreSQL server (tests/test_publish.py's fixture) and moto's standalone S3 server on loopback
(tests/shared_store_support.py says why moto). Faults are injected by a small HTTP proxy in front of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest

from lhl_platform.clause.extraction.events import ExtractionEvent, ExtractionFailed
from lhl_platform.events.log import EventLog
from lhl_platform.events.store import CATALOG_URL_ENV, EVENTS_URL_ENV, FOLDER
from lhl_platform.events.store_objects import FETCHERS_ENV, READ_TIMEOUT_ENV
from lhl_platform.events.verify import verify_log
from lhl_platform.home import Home
from lhl_platform.suites import get_suite
from orchestration.cli import main
from orchestration.cli.audit import AuditOptions, run_audit
from tests.helpers import clock_readings_apart
from tests.shared_store_support import BUCKET, FaultyProxy, free_port, new_store, s3  # noqa: F401  (a fixture)
from tests.test_publish import postgres  # noqa: F401  (the module-scoped PostgreSQL server fixture)

psycopg = pytest.importorskip("psycopg")
ReadTimeoutError = pytest.importorskip("botocore.exceptions").ReadTimeoutError
boto3 = pytest.importorskip("boto3", reason="boto3 is not installed (the dev extra carries it)")
moto_server = pytest.importorskip("moto.server", reason="moto[server] is not installed (the dev extra carries it)")

ROOT = Path(__file__).resolve().parents[1]


def _objects(prefix: str) -> list[str]:
    listed = boto3.client("s3").list_objects_v2(Bucket=BUCKET, Prefix=prefix + "/segments/")
    return [o["Key"] for o in listed.get("Contents", [])]


def _append(log: EventLog, stream: str, texts: list[str], flush_every: int = 1) -> None:
    with log.writer(stream, flush_every=flush_every) as w:
        for text in texts:
            w.append(ExtractionEvent.FAILED, text, f"note:{text}", _note(text))


def _note(text: str) -> ExtractionFailed:
    return ExtractionFailed(model="m", run=1, contract_id=text, stage="call", reason=text)


def test_appends_round_trip_between_homes_and_verify_reads_the_objects(shared, tmp_path):
    writer_log = EventLog(tmp_path / "a" / "events")
    _append(writer_log, "notes", [f"n{i}" for i in range(7)], flush_every=3)
    _append(writer_log, "other", ["x"])
    # A second machine: an empty home with the same shared store sees every committed event.
    reader_log = EventLog(tmp_path / "b" / "events")
    assert [e.subject for e in reader_log.read("notes")] == [f"n{i}" for i in range(7)]
    assert [e.model_dump() for e in reader_log.read()] == [e.model_dump() for e in writer_log.read()]
    assert reader_log.streams() == ["notes", "other"]
    assert reader_log.keys("other") == {"note:x"}
    # Content-addressed and immutable: one object per committed segment, named by its SHA-256.
    assert len(_objects(shared[EVENTS_URL_ENV].rsplit("/", 1)[1])) == 4
    report = verify_log(reader_log)
    assert report.ok, report.summary()
    assert report.events == 8 and report.objects == 4
    # Appending from the second home extends the same chain.
    _append(reader_log, "notes", ["n7"])
    assert [e.seq for e in writer_log.read("notes")] == list(range(8))
    assert verify_log(writer_log).ok


def test_a_folder_home_is_refused_as_a_mirror(shared, tmp_path, monkeypatch):
    _append(EventLog(tmp_path / "events", store=FOLDER), "notes", ["a"])
    with pytest.raises(RuntimeError, match="home migrate"):
        EventLog(tmp_path / "events").streams()
    monkeypatch.delenv(CATALOG_URL_ENV)
    with pytest.raises(ValueError, match="LHL_CATALOG_URL is not set"):
        EventLog(tmp_path / "other" / "events")


RACER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from lhl_platform.events.log import EventLog
    from lhl_platform.clause.extraction.events import ExtractionEvent, ExtractionFailed

    import time
    home, who, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    with EventLog(home / "events").writer("race", flush_every=1) as w:
        (home.parent / f"ready-{who}").touch()  # both append together, however late one process got going
        while not (home.parent / "go").exists():
            time.sleep(0.01)
        for i in range(count):
            w.append(ExtractionEvent.FAILED, who, f"{who}:{i}",
                     ExtractionFailed(model="m", run=1, contract_id=who, stage="call", reason=str(i)))
            time.sleep(0.02)  # paced, so one writer's catching up on the other's head cannot outlast the race
    print(w.commits)
""")


def test_two_processes_racing_200_appends_on_one_stream_never_fork_it(shared, tmp_path):
    env = {**os.environ, **shared}
    racers = [subprocess.Popen([sys.executable, "-c", RACER, str(tmp_path / who), who, "100"], env=env, cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for who in ("a", "b")]
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready-{who}").exists() for who in "ab") and time.monotonic() < deadline:
        time.sleep(0.01)
    (tmp_path / "go").touch()
    outs = [r.communicate(timeout=120) for r in racers]
    assert all(r.returncode == 0 for r in racers), outs
    log = EventLog(tmp_path / "c" / "events")
    events = log.read("race")
    assert [e.seq for e in events] == list(range(200))
    assert sorted(e.idempotency_key for e in events) == sorted(f"{w}:{i}" for w in "ab" for i in range(100))
    writers = [e.subject for e in events]
    switches = sum(x != y for x, y in zip(writers, writers[1:], strict=False))
    assert switches >= 2, "the two writers' commits interleave: each lost races and re-chained onto the other's"
    assert all(e.prev_hash == p.chain_hash for p, e in zip(events, events[1:], strict=False))
    report = verify_log(log)
    assert report.ok and report.heads["race"][0] == 200, report.summary()
    with psycopg.connect(shared[CATALOG_URL_ENV]) as conn:
        rows = conn.execute("SELECT seq, count, prev_head, last_chain FROM lhl_segments WHERE stream = 'race' "
                            "ORDER BY seq").fetchall()
    assert [r[0] for r in rows] == list(range(200)) and all(r[1] == 1 for r in rows)
    assert all(b[2] == a[3] for a, b in zip(rows, rows[1:], strict=False))


def test_an_injected_5xx_rate_loses_nothing(shared, s3, tmp_path, monkeypatch):  # noqa: F811
    with FaultyProxy(s3, rate=0.25).running() as proxy:
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.url)
        log = EventLog(tmp_path / "a" / "events")
        _append(log, "notes", [f"n{i}" for i in range(40)], flush_every=4)
        other = EventLog(tmp_path / "b" / "events")  # every object fetched through the faults too
        assert [e.subject for e in other.read("notes")] == [f"n{i}" for i in range(40)]
    assert proxy.faults >= 5, "the proxy injected faults"
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3)
    report = verify_log(EventLog(tmp_path / "c" / "events"))
    assert report.ok and report.events == 40 and report.objects == 10, report.summary()


def test_requests_stalled_past_the_read_timeout_are_retried_and_lose_nothing(shared, s3, tmp_path,  # noqa: F811
                                                                            monkeypatch):
    monkeypatch.setenv(READ_TIMEOUT_ENV, "0.5")
    with FaultyProxy(s3, stall_rate=0.2, stall_s=1.5).running() as proxy:
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.url)
        log = EventLog(tmp_path / "a" / "events")
        _append(log, "notes", [f"n{i}" for i in range(20)], flush_every=4)
        other = EventLog(tmp_path / "b" / "events")  # every object fetched through the stalls too
        assert [e.subject for e in other.read("notes")] == [f"n{i}" for i in range(20)]
    assert proxy.stalls >= 2, "the proxy stalled requests past the read timeout"
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3)
    report = verify_log(EventLog(tmp_path / "c" / "events"))
    assert report.ok and report.events == 20 and report.objects == 5, report.summary()


def test_an_object_store_that_never_answers_in_time_fails_in_one_line_and_commits_nothing(shared, s3,  # noqa: F811
                                                                                         tmp_path, monkeypatch):
    log = EventLog(tmp_path / "a" / "events")
    _append(log, "notes", ["a"])
    monkeypatch.setenv(READ_TIMEOUT_ENV, "0.3")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")
    with FaultyProxy(s3, stall_rate=1.0, stall_s=1.0).running() as proxy:
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.url)
        with pytest.raises(ReadTimeoutError) as failed:
            _append(log, "notes", ["b", "c"])
    message = str(failed.value)
    assert "Read timeout" in message and proxy.url in message and "\n" not in message, message
    # botocore made AWS_MAX_ATTEMPTS requests for each commit tried (the append's, and the writer's close's)
    assert proxy.stalls in (2, 4), proxy.stalls
    # Nothing of the failed append is visible anywhere (the segment it uploaded late is uncommitted, gc's to
    # collect); what was committed before stands, and the next append goes on from it.
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3)
    with psycopg.connect(shared[CATALOG_URL_ENV]) as conn:
        assert conn.execute("SELECT count(*) FROM lhl_segments").fetchone() == (1,)
    assert [e.subject for e in EventLog(tmp_path / "b" / "events").read("notes")] == ["a"]
    _append(EventLog(tmp_path / "a" / "events"), "notes", ["b", "c"])
    fresh = EventLog(tmp_path / "c" / "events")
    assert [e.subject for e in fresh.read("notes")] == ["a", "b", "c"]
    assert verify_log(fresh).ok


def test_timeouts_and_attempts_that_are_not_numbers_are_refused_in_one_line(shared, tmp_path, monkeypatch):
    for name, value, expected in ((READ_TIMEOUT_ENV, "soon", "a positive number of seconds"),
                                  (READ_TIMEOUT_ENV, "nan", "a positive number of seconds"),
                                  (READ_TIMEOUT_ENV, "inf", "a positive number of seconds"),
                                  ("AWS_MAX_ATTEMPTS", "0", "a positive whole number"),
                                  ("AWS_RETRY_MODE", "eager", "standard, adaptive or legacy"),
                                  (FETCHERS_ENV, "1.5", "a positive whole number")):
        with monkeypatch.context() as patch:
            patch.setenv(name, value)
            with pytest.raises(ValueError, match=f"{name} must be {expected}, got '{value}'"):
                _append(EventLog(tmp_path / name / "events"), "notes", ["a"])


def test_an_object_altered_in_the_bucket_is_named_by_verify(shared, tmp_path, capsys):
    home = tmp_path / "home"
    log = EventLog(home / "events")
    _append(log, "notes", ["a", "b", "c"], flush_every=1)
    assert main(["--home", str(home), "verify"]) == 0
    capsys.readouterr()
    prefix = shared[EVENTS_URL_ENV].rsplit("/", 1)[1]
    victim = sorted(_objects(prefix))[1]
    client = boto3.client("s3")
    data = client.get_object(Bucket=BUCKET, Key=victim)["Body"].read()
    client.put_object(Bucket=BUCKET, Key=victim, Body=data[:-1] + bytes([data[-1] ^ 1]))
    # This home's cache still holds the good bytes; verify reads the bucket and names the object.
    assert main(["--home", str(home), "verify"]) == 1
    err = capsys.readouterr().err
    assert f"s3://{BUCKET}/{victim}" in err and "bytes differ" in err and err.count("\n") == 1
    # A machine without the good bytes refuses to read the altered segment at all.
    with pytest.raises(RuntimeError, match=victim):
        EventLog(tmp_path / "fresh" / "events").read("notes")


def test_gc_collects_uncommitted_objects_only(shared, tmp_path):
    from datetime import timedelta

    log = EventLog(tmp_path / "a" / "events")
    _append(log, "notes", ["a", "b"])
    prefix = shared[EVENTS_URL_ENV].rsplit("/", 1)[1]
    orphan = f"{prefix}/segments/{'f' * 64}.parquet"  # written by an appender that died before its commit
    boto3.client("s3").put_object(Bucket=BUCKET, Key=orphan, Body=b"never committed")
    assert len(_objects(prefix)) == 3
    assert log.store.gc(timedelta(hours=1)) == (0, 2)  # too young: may be an append in flight
    assert log.store.gc(timedelta(0)) == (1, 2)
    assert orphan not in _objects(prefix) and len(_objects(prefix)) == 2
    assert verify_log(EventLog(tmp_path / "b" / "events")).ok


WORKER = textwrap.dedent("""
    import sys
    from orchestration.cli import main

    home, name, model_id = sys.argv[1:]
    assert main(["--home", home, "models", "add", name, "--provider", "offline", "--model-id", model_id]) == 0
    assert main(["--home", home, "audit", "--models", name, "--runs", "1", "--subset", "three"]) == 0
""")


def _report(capsys, home: Path) -> dict:
    capsys.readouterr()
    assert main(["--home", str(home), "report", "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_two_worker_homes_audit_partitions_and_a_third_reports_as_one_folder_home(shared, tmp_path, monkeypatch,
                                                                                  capsys):
    from lhl_platform.corpus.demo import DEMO_DIR

    a, b, c, d = (tmp_path / x for x in "abcd")
    setup = (("ingest", "cuad", str(DEMO_DIR)), ("subset", "create", "three", "--size", "3", "--seed", "1"))
    for args in setup:
        assert main(["--home", str(a), *args]) == 0
    # Two worker processes, each with its own home: both append to the registry, then audit a model x run
    # partition each, at the same time.
    env = {**{k: v for k, v in os.environ.items() if not k.endswith("API_KEY")}, **shared}
    # Their output goes to files: nobody reads a pipe while the folder home below is audited.
    logs = [(tmp_path / f"{name}.out").open("w+") for name in ("lex", "omit")]
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, str(home), name, model_id], env=env, cwd=ROOT,
                                stdout=log, stderr=subprocess.STDOUT, text=True)
               for (home, name, model_id), log in zip(((a, "lex", "lexical"), (b, "omit", "simulated:omitter")),
                                                      logs, strict=True)]
    # Meanwhile (the workers are their own processes and have their environment already), the same partitions
    # audited in one folder home: its report's baseline, so without the metrics job (its warehouse is built when
    # the report reads it).
    for key in shared:
        monkeypatch.delenv(key)
    for args in (*setup, ("models", "add", "lex", "--provider", "offline", "--model-id", "lexical"),
                 ("models", "add", "omit", "--provider", "offline", "--model-id", "simulated:omitter")):
        assert main(["--home", str(d), *args]) == 0
    assert run_audit(Home.resolve(str(d)), get_suite("clause"), ["lex", "omit"], [1], AuditOptions(subset="three"),
                     say=lambda _: None, metrics=False) == 0
    folder_report = _report(capsys, d)
    for key, value in shared.items():
        monkeypatch.setenv(key, value)
    for w in workers:
        w.wait(timeout=400)
    outs = [log.seek(0) or log.read() for log in logs]
    for log in logs:
        log.close()
    assert all(w.returncode == 0 for w in workers), [out[-2000:] for out in outs]
    shared_report = _report(capsys, c)  # a third machine: nothing but the shared store
    assert main(["--home", str(c), "verify"]) == 0
    assert {(r["model"], r["n"]) for r in shared_report["leaderboard"]} == {("lex", 3 * 41), ("omit", 3 * 41)}
    assert clock_readings_apart(shared_report)[0] == clock_readings_apart(folder_report)[0]


def test_home_migrate_copies_a_folder_home_and_verifies_the_copy(shared, tmp_path, monkeypatch, capsys):
    from lhl_platform.corpus.demo import DEMO_DIR

    folder = tmp_path / "folder"
    for key in shared:
        monkeypatch.delenv(key)
    assert main(["--home", str(folder), "ingest", "cuad", str(DEMO_DIR)]) == 0
    _append(EventLog(folder / "events"), "notes", [f"n{i}" for i in range(5)], flush_every=2)
    expected = [e.model_dump() for e in EventLog(folder / "events").read()]
    assert main(["--home", str(folder), "home", "migrate"]) == 1
    assert "no shared store" in capsys.readouterr().err
    for key, value in shared.items():
        monkeypatch.setenv(key, value)
    assert main(["--home", str(folder), "home", "migrate"]) == 0
    out = capsys.readouterr().out
    assert "copied 4 segments" in out and "copy verified" in out
    assert main(["--home", str(folder), "home", "migrate"]) == 0  # again: nothing new to copy
    assert "copied 0 segments" in capsys.readouterr().out
    # Another machine: the events, byte for byte, and the stored corpus come with the shared store.
    other = tmp_path / "other"
    assert [e.model_dump() for e in EventLog(other / "events").read()] == expected
    assert main(["--home", str(other), "verify"]) == 0
    assert "corpora intact: 1 corpora, 2 files" in capsys.readouterr().out


@pytest.fixture
def restartable_postgres(tmp_path):
    """A PostgreSQL server of this test's own (trust auth on loopback), and a function that restarts it."""
    import pwd
    import shutil
    import tempfile

    from tests.test_publish import _has_user, _pg_binary

    initdb, pg_ctl = _pg_binary("initdb"), _pg_binary("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found; .ci/run installs the postgresql package")
    root = Path(tempfile.mkdtemp(prefix="lhl-pg-restart-"))
    prefix: list[str] = []
    if os.geteuid() == 0:
        user = next((u for u in ("postgres", "nobody") if _has_user(u)), None)
        if user is None or not shutil.which("runuser"):
            pytest.skip("running as root without a `postgres` or `nobody` user and runuser to start PostgreSQL")
        entry = pwd.getpwnam(user)
        os.chown(root, entry.pw_uid, entry.pw_gid)
        prefix = ["runuser", "-u", user, "--"]
    data, port = root / "data", free_port()
    subprocess.run([*prefix, initdb, "-D", str(data), "-U", "lhl", "--auth=trust", "--no-sync"], check=True,
                   capture_output=True, timeout=120)
    options = ["-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"]

    def ctl(*args: str) -> None:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-l", str(root / "server.log"), "-w", "-t", "60",
                        *options, *args], check=True, capture_output=True, timeout=90)

    ctl("start")
    try:
        yield f"postgresql://lhl@127.0.0.1:{port}/postgres", ctl
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"], capture_output=True,
                       timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def test_a_postgresql_restart_during_appends_loses_nothing(restartable_postgres, s3, tmp_path, monkeypatch):  # noqa: F811
    url, ctl = restartable_postgres
    down = threading.Event()

    def restart() -> None:  # the server stops (connections cut), stays down a while, comes back
        ctl("-m", "fast", "stop")
        down.set()
        threading.Event().wait(1.5)
        ctl("start")

    monkeypatch.setenv(EVENTS_URL_ENV, f"s3://{BUCKET}/restart-{uuid.uuid4().hex[:8]}")
    monkeypatch.setenv(CATALOG_URL_ENV, url)
    log = EventLog(tmp_path / "a" / "events")
    texts = [f"n{i}" for i in range(60)]
    with log.writer("notes", flush_every=2) as w:
        for i, text in enumerate(texts):
            if i == 30:  # mid-stream: the next commits find the server gone and retry until it is back
                restarter = threading.Thread(target=restart, daemon=True)
                restarter.start()
                assert down.wait(60)
            w.append(ExtractionEvent.FAILED, text, f"note:{text}", _note(text))
    restarter.join(60)
    events = EventLog(tmp_path / "b" / "events").read("notes")
    assert [e.subject for e in events] == texts and [e.seq for e in events] == list(range(60))
    report = verify_log(EventLog(tmp_path / "c" / "events"))
    assert report.ok and report.objects == 30, report.summary()
