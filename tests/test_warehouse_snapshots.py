"""Warehouse snapshots in the shared store (`lhl_platform/warehouse/snapshots.py`): an empty home restores the
newest usable snapshot and stages only the segments after it, and reports what a folder home reports; the faults
(an upload killed midway, an altered snapshot, one of an older layout or other SQL, two writers publishing at once)
never make a home read anything wrong; `lhl home gc --keep-snapshots N`.

A real PostgreSQL server (tests/test_publish.py's fixture) and moto's S3 server on loopback
(tests/shared_store_support.py). The evidence comes from one small folder home audited in two steps (one offline
model, then another): each step is copied into a fresh shared store with `lhl home migrate`, so a snapshot made
after the first step has segments after it once the second is copied in.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import tarfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

from lhl_platform.events.store import CATALOG_URL_ENV, EVENTS_URL_ENV
from lhl_platform.warehouse.snapshots import wait_for_snapshots
from orchestration.cli import main
from tests.helpers import clock_readings_apart
from tests.shared_store_support import BUCKET, FaultyProxy, _Forward, s3, set_env  # noqa: F401
from tests.test_publish import postgres  # noqa: F401  (the module-scoped PostgreSQL server fixture)

psycopg = pytest.importorskip("psycopg")
boto3 = pytest.importorskip("boto3", reason="boto3 is not installed (the dev extra carries it)")
pytest.importorskip("moto.server", reason="moto[server] is not installed (the dev extra carries it)")

ROOT = Path(__file__).resolve().parents[1]
NO_STORE = {EVENTS_URL_ENV: None, CATALOG_URL_ENV: None}


def _run(home: Path, *argv: str) -> None:
    assert main(["--home", str(home), *argv]) == 0, argv


def _json_report(capsys, home: Path) -> dict:
    capsys.readouterr()
    _run(home, "report", "--format", "json")
    report = json.loads(capsys.readouterr().out)
    wait_for_snapshots()
    return clock_readings_apart(report)[0]


@pytest.fixture(scope="module")
def folders(two_step_homes):
    """(the first step's folder home, the second step's, the second step's report) of one small audit."""
    first, second = two_step_homes
    with set_env(NO_STORE):
        out = io.StringIO()
        from contextlib import redirect_stdout

        with redirect_stdout(out):
            _run(second, "report", "--format", "json")
    report = clock_readings_apart(json.loads(out.getvalue()))[0]
    assert {r["model"] for r in report["leaderboard"]} == {"lex", "omit"}
    return first, second, report


@pytest.fixture
def log(caplog):
    caplog.set_level(logging.INFO, logger="lhl.warehouse")
    return caplog


def _migrate(folder: Path) -> None:
    _run(folder, "home", "migrate")


def _snapshots(env: dict[str, str]) -> list[tuple[str, str, str, dict, int]]:
    """(sha256, layout, sql digest, coverage, events) of every recorded snapshot, newest first."""
    with psycopg.connect(env[CATALOG_URL_ENV]) as conn:
        return [tuple(r) for r in conn.execute(
            "SELECT sha256, layout, sql_digest, coverage, events FROM lhl_warehouse_snapshots "
            "ORDER BY events DESC, created_at DESC")]


def _after(env: dict[str, str], coverage: dict) -> int:
    """How many committed segments a snapshot of this coverage does not cover."""
    with psycopg.connect(env[CATALOG_URL_ENV]) as conn:
        rows = conn.execute("SELECT stream, seq FROM lhl_segments").fetchall()
    return sum(1 for stream, seq in rows if stream not in coverage or seq > coverage[stream][0])


def _key(env: dict[str, str], sha: str) -> str:
    return f"{env[EVENTS_URL_ENV].rsplit('/', 1)[1]}/warehouse/{sha}.tar"


def _objects(env: dict[str, str]) -> list[str]:
    prefix = env[EVENTS_URL_ENV].rsplit("/", 1)[1] + "/warehouse/"
    listed = boto3.client("s3").list_objects_v2(Bucket=BUCKET, Prefix=prefix)
    return sorted(o["Key"] for o in listed.get("Contents", []))


def _builds(log) -> list[str]:
    """The warehouse's log lines of this test: restores, refusals and builds (staged segment counts)."""
    return [r.getMessage() for r in log.records if r.name == "lhl.warehouse"]


def _staged(lines: list[str]) -> list[tuple[int, int, str]]:
    found = [re.search(r"staged (\d+) of (\d+) segments \((.*)\)", line) for line in lines]
    return [(int(m[1]), int(m[2]), m[3]) for m in found if m]


def _first_snapshot(env, folders, capsys, tmp_path) -> tuple[str, dict]:
    """The first step copied into the store and reported on by a writer home (which publishes a snapshot of it);
    then the second step copied in. Returns the snapshot's (sha256, coverage)."""
    first, second, _ = folders
    _migrate(first)
    _json_report(capsys, tmp_path / "writer")
    (sha, layout, _, coverage, _), = _snapshots(env)
    _migrate(second)
    assert _after(env, coverage) > 0, "the second step committed segments after the snapshot"
    return sha, coverage


def test_an_empty_home_restores_a_snapshot_and_stages_only_the_segments_after_it(shared, folders, tmp_path,
                                                                               capsys, log):
    sha, coverage = _first_snapshot(shared, folders, capsys, tmp_path)
    assert [k.rsplit("/", 1)[1] for k in _objects(shared)] == [f"{sha}.tar"]
    log.clear()
    pod = tmp_path / "pod"  # a new machine: nothing but the shared store
    report = _json_report(capsys, pod)
    lines = _builds(log)
    assert any(f"restored warehouse snapshot s3://{BUCKET}/{_key(shared, sha)}" in line for line in lines), lines
    (staged, total, how), = _staged(lines)
    assert staged == _after(shared, coverage) and staged < total and how.startswith("refreshed from build"), lines
    assert report == folders[2]
    # The refreshed build is what a build from the events computes, table for table.
    capsys.readouterr()
    _run(pod, "verify")
    assert "warehouse: " in capsys.readouterr().out
    # ... and the pod published its own, covering everything: the newest now.
    newest = _snapshots(shared)
    assert len(newest) == 2 and newest[1][0] == sha and _after(shared, newest[0][3]) == 0


def test_an_altered_snapshot_is_refused_by_name_and_the_next_older_one_used(shared, folders, tmp_path, capsys, log):
    sha, coverage = _first_snapshot(shared, folders, capsys, tmp_path)
    _json_report(capsys, tmp_path / "second-writer")  # restores the first, publishes one covering everything
    newest = _snapshots(shared)[0][0]
    assert newest != sha
    client = boto3.client("s3")
    key = _key(shared, newest)
    data = client.get_object(Bucket=BUCKET, Key=key)["Body"].read()
    client.put_object(Bucket=BUCKET, Key=key, Body=data[:-600] + bytes([data[-600] ^ 1]) + data[-599:])
    log.clear()
    report = _json_report(capsys, tmp_path / "pod")
    lines = _builds(log)
    assert f"warehouse snapshot s3://{BUCKET}/{key} refused: its bytes differ from the SHA-256 it is named by" \
        in lines, lines
    assert any(f"restored warehouse snapshot s3://{BUCKET}/{_key(shared, sha)}" in line for line in lines), lines
    assert _staged(lines)[0][0] == _after(shared, coverage)
    assert report == folders[2]
    # Both altered (the older one cut short): a build from the events, and the same report.
    first_key = _key(shared, sha)
    data = client.get_object(Bucket=BUCKET, Key=first_key)["Body"].read()
    client.put_object(Bucket=BUCKET, Key=first_key, Body=data[:len(data) // 2])
    for snap in _snapshots(shared):  # what the pod just published is of no use to this test
        if snap[0] not in (sha, newest):
            with psycopg.connect(shared[CATALOG_URL_ENV]) as conn:
                conn.execute("DELETE FROM lhl_warehouse_snapshots WHERE sha256 = %s", (snap[0],))
    log.clear()
    report = _json_report(capsys, tmp_path / "another-pod")
    lines = _builds(log)
    assert sum(" refused: its bytes differ from the SHA-256 it is named by" in line for line in lines) == 2, lines
    assert not any("restored warehouse snapshot" in line for line in lines)
    assert _staged(lines)[0][2] == "from nothing"
    assert report == folders[2]


def _repacked(data: bytes, **changes: object) -> bytes:
    """A snapshot archive with its snapshot.json changed."""
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(data)) as src, tarfile.open(fileobj=out, mode="w",
                                                                      format=tarfile.PAX_FORMAT) as dst:
        for member in src.getmembers():
            body = src.extractfile(member).read()
            if member.name == "snapshot.json":
                body = json.dumps({**json.loads(body), **changes}).encode()
                member.size = len(body)
            dst.addfile(member, io.BytesIO(body))
    return out.getvalue()


def _record(env, sha: str, layout: str, sql: str, coverage: dict, events: int, size: int) -> None:
    with psycopg.connect(env[CATALOG_URL_ENV]) as conn:
        conn.execute("INSERT INTO lhl_warehouse_snapshots (sha256, layout, sql_digest, coverage, events, bytes, ext) "
                     "VALUES (%s, %s, %s, %s::jsonb, %s, %s, 'tar')", (sha, layout, sql, json.dumps(coverage),
                                                                        events, size))


def test_snapshots_of_an_older_layout_or_other_sql_are_never_used(shared, folders, tmp_path, capsys, log):
    import hashlib

    first, second, expected = folders
    _migrate(second)
    _json_report(capsys, tmp_path / "writer")
    (sha, layout, sql, coverage, events), = _snapshots(shared)
    data = boto3.client("s3").get_object(Bucket=BUCKET, Key=_key(shared, sha))["Body"].read()
    # The same build claimed for layout 4, and for other SQL: whole objects, recorded, newest (more events).
    for changes in ({"layout": "4"}, {"sql_digest": "0" * 64}):
        body = _repacked(data, **changes)
        digest = hashlib.sha256(body).hexdigest()
        boto3.client("s3").put_object(Bucket=BUCKET, Key=_key(shared, digest), Body=body)
        _record(shared, digest, str(changes.get("layout", layout)), str(changes.get("sql_digest", sql)), coverage,
                events + 1000, len(body))
    # Today's one removed: nothing of this layout and SQL is left, so the pod builds from the events.
    with psycopg.connect(shared[CATALOG_URL_ENV]) as conn:
        conn.execute("DELETE FROM lhl_warehouse_snapshots WHERE sha256 = %s", (sha,))
    log.clear()
    report = _json_report(capsys, tmp_path / "pod")
    lines = _builds(log)
    assert not any("restored warehouse snapshot" in line or "refused" in line for line in lines), lines
    assert _staged(lines)[0][2] == "from nothing"
    assert report == expected


STALLED = textwrap.dedent("""
    import sys
    import lhl_platform.catalog  # noqa: F401
    from orchestration.cli import main

    sys.exit(main(["--home", sys.argv[1], "report", "--format", "json"]))
""")


class _StallWarehousePuts(_Forward):
    """Forwards every request but the upload of a snapshot, which it holds until the test is over."""

    def do_PUT(self) -> None:  # noqa: N802 - the http.server protocol
        if "/warehouse/" in self.path:
            self.rfile.read(int(self.headers.get("Content-Length") or 0) // 2)  # half the object arrives
            self.server.stalled.set()  # type: ignore[attr-defined]
            time.sleep(60)
            return
        self._any()


def test_an_upload_killed_midway_is_never_used_and_never_made_a_reader_wait(shared, s3, folders, tmp_path,  # noqa: F811
                                                                          capsys, log):
    first, second, expected = folders
    _migrate(second)
    proxy = FaultyProxy(s3)
    proxy.RequestHandlerClass = _StallWarehousePuts
    proxy.stalled = threading.Event()  # type: ignore[attr-defined]
    out_path, err_path = tmp_path / "writer.out", tmp_path / "writer.err"
    with proxy.running(), out_path.open("w") as out_file, err_path.open("w") as err_file:
        env = {**os.environ, **shared, "AWS_ENDPOINT_URL": proxy.url, "PYTHONUNBUFFERED": "1"}
        writer = subprocess.Popen([sys.executable, "-c", STALLED, str(tmp_path / "writer")], env=env, cwd=ROOT,
                                  stdout=out_file, stderr=err_file, text=True)
        try:
            assert proxy.stalled.wait(180), "the writer started uploading its snapshot"
            printed = None
            deadline = time.monotonic() + 60
            while printed is None and time.monotonic() < deadline:  # the report, printed while the upload hangs
                try:
                    printed = json.loads(out_path.read_text())
                except ValueError:
                    time.sleep(0.1)
            assert writer.poll() is None, "the writer is still uploading"
        finally:
            writer.kill()  # midway through the upload
            writer.wait(30)
    err = err_path.read_text()
    assert printed is not None, err[-2000:]
    assert clock_readings_apart(printed)[0] == expected, err[-2000:]
    assert _snapshots(shared) == []
    # What a store that kept the half-written object would hold: under the name of the whole, never recorded.
    orphan = _key(shared, "e" * 64)
    boto3.client("s3").put_object(Bucket=BUCKET, Key=orphan, Body=b"half a snapshot")
    log.clear()
    report = _json_report(capsys, tmp_path / "pod")
    lines = _builds(log)
    assert not any("restored warehouse snapshot" in line for line in lines), lines
    assert _staged(lines)[0][2] == "from nothing"
    assert report == expected
    # gc removes the orphan once old enough, and keeps the pod's recorded snapshot.
    (pod_sha, *_), = _snapshots(shared)
    _run(tmp_path / "pod", "home", "gc", "--older-than-hours", "1")
    assert orphan in _objects(shared)
    capsys.readouterr()
    _run(tmp_path / "pod", "home", "gc", "--older-than-hours", "0")
    assert "removed 1 warehouse snapshots" in capsys.readouterr().out
    assert _objects(shared) == [_key(shared, pod_sha)]


PUBLISHER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    import lhl_platform.catalog  # noqa: F401
    from orchestration.cli import main

    home, go = sys.argv[1], Path(sys.argv[2])
    while not go.exists():
        time.sleep(0.01)
    sys.exit(main(["--home", home, "report", "--format", "json"]))
""")


def test_two_writers_publishing_at_once_record_whole_snapshots_only(shared, folders, tmp_path, capsys, log):
    import hashlib

    first, second, expected = folders
    _migrate(second)
    env = {**os.environ, **shared}
    go = tmp_path / "go"
    writers = [subprocess.Popen([sys.executable, "-c", PUBLISHER, str(tmp_path / who), str(go)], env=env, cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for who in ("a", "b")]
    time.sleep(1.0)
    go.touch()
    outs = [w.communicate(timeout=300) for w in writers]
    assert all(w.returncode == 0 for w in writers), [err[-2000:] for _, err in outs]
    assert all(clock_readings_apart(json.loads(out))[0] == expected for out, _ in outs)
    recorded = _snapshots(shared)
    assert len(recorded) in (1, 2), recorded
    for sha, *_ in recorded:  # every recorded one is whole: its bytes are its name
        data = boto3.client("s3").get_object(Bucket=BUCKET, Key=_key(shared, sha))["Body"].read()
        assert hashlib.sha256(data).hexdigest() == sha
    log.clear()
    report = _json_report(capsys, tmp_path / "pod")
    lines = _builds(log)
    assert any("restored warehouse snapshot" in line for line in lines), lines
    assert _staged(lines)[0][0] == 0
    assert report == expected
    _run(tmp_path / "pod", "verify")


def test_gc_keeps_the_newest_snapshots_of_each_layout(shared, tmp_path, capsys):
    _run(tmp_path / "home", "home", "gc")  # an empty store: nothing to remove (and the catalog's tables made)
    client = boto3.client("s3")
    made = []
    for i, layout in enumerate(["5", "5", "5", "4", "4"]):
        sha = f"{i:x}" * 64
        client.put_object(Bucket=BUCKET, Key=_key(shared, sha), Body=b"x")
        _record(shared, sha, layout, "s", {}, 10 * i, 1)
        made.append(sha)
    stray = _key(shared, "f" * 64)  # an upload in flight, or one that died: not recorded
    client.put_object(Bucket=BUCKET, Key=stray, Body=b"x")
    capsys.readouterr()
    _run(tmp_path / "home", "home", "gc", "--keep-snapshots", "2")
    assert "removed 1 warehouse snapshots" in capsys.readouterr().out  # the oldest of layout 5; the stray is young
    assert [s[0] for s in _snapshots(shared)] == [made[4], made[3], made[2], made[1]]
    assert _key(shared, made[0]) not in _objects(shared) and stray in _objects(shared)
    _run(tmp_path / "home", "home", "gc", "--keep-snapshots", "1", "--older-than-hours", "0")
    assert [s[0] for s in _snapshots(shared)] == [made[4], made[2]]
    assert _objects(shared) == sorted(_key(shared, s) for s in (made[4], made[2]))
    assert main(["--home", str(tmp_path / "home"), "home", "gc", "--keep-snapshots", "-1"]) == 1


class _RefuseWarehousePuts(_Forward):
    """Forwards every request but the upload of a snapshot, which it answers with a 500."""

    def do_PUT(self) -> None:  # noqa: N802 - the http.server protocol
        if "/warehouse/" not in self.path:
            self._any()
            return
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        error = b"<Error><Code>InternalError</Code><Message>injected</Message></Error>"
        self.send_response(500)
        self.send_header("Content-Length", str(len(error)))
        self.end_headers()
        self.wfile.write(error)


def test_a_failed_upload_is_a_warning_and_the_report_stands(shared, s3, folders, tmp_path, capsys, log,  # noqa: F811
                                                            monkeypatch):
    _migrate(folders[1])
    proxy = FaultyProxy(s3)
    proxy.RequestHandlerClass = _RefuseWarehousePuts
    with proxy.running():
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.url)
        monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")
        report = _json_report(capsys, tmp_path / "writer")
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3)
    assert report == folders[2]
    lines = _builds(log)
    assert any(line.startswith("warehouse build ") and "not published as a snapshot" in line for line in lines), lines
    assert _snapshots(shared) == [] and _objects(shared) == []


def _tar(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for name, body in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return out.getvalue()


def test_a_snapshot_that_cannot_be_read_is_refused_by_name(shared, tmp_path, log):
    import hashlib

    from lhl_platform.home import Home
    from lhl_platform.warehouse.snapshots import SnapshotMeta, restore
    from lhl_platform.warehouse.sql_digest import LAYOUT, sql_digest
    from lhl_platform.warehouse.store import Store

    home = Home(tmp_path / "pod")
    _run(home.root, "home", "gc")  # the catalog's tables
    meta = SnapshotMeta(layout=LAYOUT, sql_digest=sql_digest(home), coverage={}, events=0, fingerprint="f")
    bodies = {"garbage": b"not a tar archive at all" * 40,
              "escaping": _tar({"snapshot.json": meta.model_dump_json().encode(), "build.duckdb": b"DUCK",
                                "../../outside.parquet": b"PAR1"}),
              "no build": _tar({"snapshot.json": meta.model_dump_json().encode()}),
              "other record": _tar({"snapshot.json": meta.model_copy(update={"events": 7}).model_dump_json().encode(),
                                    "build.duckdb": b"DUCK"}),
              "not a database": _tar({"snapshot.json": meta.model_dump_json().encode(),
                                      "build.duckdb": b"not a database"})}
    keys = {}
    for what, body in bodies.items():
        sha = hashlib.sha256(body).hexdigest()
        boto3.client("s3").put_object(Bucket=BUCKET, Key=_key(shared, sha), Body=body)
        _record(shared, sha, LAYOUT, meta.sql_digest, {}, 0, len(body))
        keys[what] = f"s3://{BUCKET}/{_key(shared, sha)}"
    assert restore(home, Store(home.warehouse_path), 1, []) is None
    refused = {line.split(" refused: ")[0].removeprefix("warehouse snapshot "): line.split(" refused: ")[1]
               for line in _builds(log) if " refused: " in line}
    assert refused[keys["garbage"]].startswith("unreadable"), refused
    assert refused[keys["escaping"]] == "not a warehouse snapshot (unexpected file names)"
    assert refused[keys["no build"]] == "not a warehouse snapshot (unexpected file names)"
    assert refused[keys["other record"]] == "its snapshot.json differs from its record in the catalog"
    assert refused[keys["not a database"]].startswith("not a readable build"), refused
    assert not (tmp_path / "outside.parquet").exists() and not (home.root / "outside.parquet").exists()
    assert sorted(p.name for p in home.warehouse_path.iterdir()) == []  # nothing left behind


def test_snapshots_off_neither_publish_nor_restore(shared, folders, tmp_path, capsys, log, monkeypatch):
    _migrate(folders[1])
    _json_report(capsys, tmp_path / "writer")
    assert len(_snapshots(shared)) == 1
    monkeypatch.setenv("LHL_WAREHOUSE_SNAPSHOTS", "off")
    log.clear()
    assert _json_report(capsys, tmp_path / "pod") == folders[2]
    lines = _builds(log)
    assert not any("snapshot" in line for line in lines) and _staged(lines)[0][2] == "from nothing", lines
    assert len(_snapshots(shared)) == 1
