"""`lhl publish`: the report's tables in a SQLAlchemy database, one scope replaced at a time, never a credential
kept. Run against SQLite and against a real PostgreSQL server that the test starts on a free port."""

import glob
import json
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from lhl_platform.clause.report.publish import TABLES, read_published
from lhl_platform.report import publish as publishing
from orchestration.cli import main

ARGS = ("--resamples", "300", "--seed", "2")


def _json_report(home, capsys, *extra):
    assert main(["--home", str(home), "report", "--format", "json", *ARGS, *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _published(url, table, key=None):
    return [r.model_dump(mode="json") for r in read_published(url, table, key)]


def _counts(url):
    engine = create_engine(publishing.resolve_url(url))
    try:
        with engine.connect() as con:
            return {name: con.execute(text(f"select count(*) from {name}")).scalar_one()
                    for name in ("publications", *TABLES)}
    finally:
        engine.dispose()


def _publish_twice_then_check(home, url, capsys):
    report = _json_report(home, capsys)
    for attempt in (1, 2):
        assert main(["--home", str(home), "publish", url, *ARGS]) == 0
        out = capsys.readouterr().out
        assert out.startswith("published scope") and ("replaced 0" in out) == (attempt == 1)
    counts = _counts(url)
    assert counts["publications"] == 1
    # one row per model in leaderboard, equal to the JSON report; every other section as long as in the JSON
    assert _published(url, "leaderboard") == report["leaderboard"]
    assert _published(url, "rdi") == report["rdi"]
    assert _published(url, "rate_intervals") == report["statistics"]["rate_intervals"]
    assert counts["composite_ranks"] == len(report["composite"])
    assert counts["clause_profiles"] == len(report["clause_profiles"])
    assert counts["provenance"] == len(report["provenance"]["sources"])
    assert counts["rank_stability"] == len(report["statistics"]["rank_stability"])
    return report


def test_publish_to_sqlite_twice_keeps_one_row_per_model(demo_home, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    report = _publish_twice_then_check(demo_home, url, capsys)
    engine = create_engine(url)
    with engine.connect() as con:
        pub = con.execute(text("select corpus_id, judge, code_version, runs, models, bootstrap_unit, resamples "
                               "from publications")).one()
    engine.dispose()
    assert pub.corpus_id == report["scope"]["corpus_id"] and pub.judge == report["scope"]["judge"]
    assert pub.code_version == report["provenance"]["code_version"]
    assert json.loads(pub.runs) == report["scope"]["runs"] and json.loads(pub.models) == report["scope"]["models"]
    assert (pub.bootstrap_unit, pub.resamples) == ("instance", 300)

    # another scope is published beside the first, which stays as it was
    assert main(["--home", str(demo_home), "publish", url, "--runs", "1", *ARGS]) == 0
    capsys.readouterr()
    run1 = _json_report(demo_home, capsys, "--runs", "1")
    counts = _counts(url)
    assert counts["publications"] == 2
    assert counts["leaderboard"] == len(report["leaderboard"]) + len(run1["leaderboard"])
    keys = [k for k, in create_engine(url).connect().execute(text("select scope_key from publications"))]
    assert sorted(_published(url, "leaderboard", k)[0]["n"] for k in keys) == sorted(
        [report["leaderboard"][0]["n"], run1["leaderboard"][0]["n"]])


def test_republishing_is_one_transaction(demo_home, tmp_path, capsys, monkeypatch):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    assert main(["--home", str(demo_home), "publish", url, *ARGS]) == 0
    before = _counts(url)
    leaderboard = _published(url, "leaderboard")
    table = TABLES["rank_stability"]  # written after the old rows were deleted and most new rows added

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(table, "model_validate", broken)
    assert main(["--home", str(demo_home), "publish", url, *ARGS]) == 1
    assert "disk full" in capsys.readouterr().err
    assert _counts(url) == before and _published(url, "leaderboard") == leaderboard


def test_publish_needs_a_url_and_reports_failures_in_one_line(demo_home, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(publishing.URL_ENV, raising=False)
    assert main(["--home", str(demo_home), "publish"]) == 1
    assert "LHL_PUBLISH_URL" in capsys.readouterr().err
    monkeypatch.setenv(publishing.URL_ENV, f"sqlite:///{tmp_path / 'env.db'}")
    assert main(["--home", str(demo_home), "publish", *ARGS]) == 0
    assert "env.db" in capsys.readouterr().out
    assert main(["--home", str(demo_home), "publish", "postgresql://lhl:hunter2@127.0.0.1:1/none", *ARGS]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "failed" in err and "hunter2" not in err and "***" in err


# --- PostgreSQL ----------------------------------------------------------------------------------------------


def _pg_binary(name):
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    return candidates[-1] if candidates else None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres():
    """A throwaway PostgreSQL server with password authentication on 127.0.0.1; (host url without password,
    password). As root, the server runs as the `postgres` system user (or `nobody`), since it refuses root."""
    initdb, pg_ctl = _pg_binary("initdb"), _pg_binary("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found; .ci/run installs the postgresql package")
    root = Path(tempfile.mkdtemp(prefix="lhl-pg-"))
    password = "pw-" + secrets.token_hex(12)
    (root / "pwfile").write_text(password + "\n")
    prefix: list[str] = []
    if os.geteuid() == 0:
        user = next((u for u in ("postgres", "nobody") if _has_user(u)), None)
        if user is None or not shutil.which("runuser"):
            pytest.skip("running as root without a `postgres` or `nobody` user and runuser to start PostgreSQL")
        entry = pwd.getpwnam(user)
        for path in (root, root / "pwfile"):
            os.chown(path, entry.pw_uid, entry.pw_gid)
        prefix = ["runuser", "-u", user, "--"]
    data, port = root / "data", _free_port()
    subprocess.run([*prefix, initdb, "-D", str(data), "-U", "lhl", f"--pwfile={root / 'pwfile'}",
                    "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync"],
                   check=True, capture_output=True, timeout=120)
    (root / "pwfile").unlink()
    started = subprocess.run([*prefix, pg_ctl, "-D", str(data), "-l", str(root / "server.log"), "-w", "-t", "60",
                              "-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                             capture_output=True, timeout=90)
    if started.returncode != 0:
        log = (root / "server.log").read_text() if (root / "server.log").exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"PostgreSQL did not start: {started.stderr.decode()} {log}")
    try:
        yield f"postgresql://lhl@127.0.0.1:{port}/postgres", password
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"], capture_output=True,
                       timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def _has_user(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def _files_containing(root: Path, secret: str) -> list[str]:
    needle = secret.encode()
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_publish_to_postgres_twice_and_keep_no_credential(demo_home, postgres, tmp_path, capsys, monkeypatch):
    base, password = postgres
    home = tmp_path / "home"
    shutil.copytree(demo_home, home)
    url = base.replace("lhl@", f"lhl:{password}@")
    _publish_twice_then_check(home, url, capsys)
    with create_engine(publishing.resolve_url(url)).connect() as con:
        kinds = dict(con.execute(text("select column_name, data_type from information_schema.columns "
                                      "where table_name = 'leaderboard'")).all())
    assert kinds["hal_tp"] == "double precision" and kinds["n"] == "bigint" and kinds["model"] == "character varying"
    # the password from the environment instead of the URL
    monkeypatch.setenv(publishing.PASSWORD_ENV, password)
    assert main(["--home", str(home), "publish", base, *ARGS]) == 0
    out = capsys.readouterr().out
    assert "replaced" in out and password not in out
    assert _counts(url)["publications"] == 1
    # nothing of the credential is kept: not in the home (events, warehouse, Dagster instance), nor in the database
    assert _files_containing(home, password) == []
    with create_engine(publishing.resolve_url(url)).connect() as con:
        stored = con.execute(text("select * from publications")).all()
    assert password not in repr(stored)
