"""The warehouse: refreshed incrementally yet equal to a rebuild, checked like the events, safe to share.

A refresh reads only the segments committed since the last build and recomputes what they touch; it must store
exactly what a rebuild from the events stores (compared after a series of audits, imports and re-judgings). Every
build is checked against the digest recorded at its build; a build that cannot be read is rebuilt; a read-only home
is still reported on; readers never wait for a writer, and writers take turns saying so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from lhl_platform.clause.importer import import_outcomes
from lhl_platform.clause.report.build import build_report
from lhl_platform.clause.report.render import report_json
from lhl_platform.corpus.demo import DEMO_DIR
from lhl_platform.domain.taxonomy import CLAUSE_TYPES
from lhl_platform.home import Home
from lhl_platform.warehouse.build import build_warehouse, memory_warehouse, read_warehouse
from lhl_platform.warehouse.models import SCOPE_TABLES, scope_tables, source_names, sql_models
from lhl_platform.warehouse.store import Store
from lhl_platform.warehouse.verify import compare_projection, compared_tables
from orchestration.cli import main
from tests.helpers import outcome, read_only_mount, write_outcomes

ROOT = Path(__file__).resolve().parents[1]
KINDS = ["TP", "FP", "FN", "TN"]


def _rows(model: str, run: int, contracts: list[str], seed: int = 0) -> list[dict[str, object]]:
    rows = []
    for c, contract in enumerate(contracts):
        for i, clause in enumerate(CLAUSE_TYPES):
            kind = KINDS[(i + c + seed) % 4]
            verdict = ("contradicted", "extra_condition") if kind == "TP" and (i + seed) % 3 == 0 else (
                ("supported", "none") if kind == "TP" else ("", ""))
            rows.append(outcome(model, run, contract, clause, kind, *verdict))
    return rows


def _import(home: Home, tmp_path: Path, rows: list[dict[str, object]], name: str) -> None:
    import_outcomes(home, write_outcomes(tmp_path / f"{name}.csv", rows))


def _cli(*args: str, home: Path) -> int:
    return main(["--home", str(home), *args])


def _lhl(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "orchestration.cli", "--home", str(home), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)


def _current(home: Home) -> Path:
    record = Store(home.warehouse_path).current()
    assert record is not None
    return home.warehouse_path / record.catalog


def _matches_the_events(home: Home) -> None:
    build_warehouse(home)
    report = compare_projection(home)
    assert report.build is not None and report.problems == []


def _partitions(home: Home, models: list[str], runs: list[int], *, suite: str | None = None, **clause: object) -> None:
    """An audit's partition runs through the one run path (`orchestration.launch`), without the metrics job the
    CLI runs after them: that job's work here is the warehouse refresh, which `_matches_the_events` then runs
    itself (so every refresh is still compared with a rebuild), at a fraction of a Dagster job's cost."""
    from lhl_platform.suites import get_suite
    from orchestration.launch import execute, instance_for
    from orchestration.runs import job_launch

    if suite is None:
        _audit(home, models, runs, **clause)
        return
    job = next(j for j in get_suite(suite).jobs if j.partitioning == "model_run")
    instance = instance_for(home)
    try:
        for run in runs:
            for model in models:
                execute(home, instance, job_launch(home, job.name, "cli", model=model, run=run,
                                                   run_key=f"{job.name}:{model}:{run}"))
    finally:
        instance.dispose()


def _audit(home: Home, models: list[str], runs: list[int], suite: str = "clause", **options: object) -> None:
    """`lhl audit` through its one path (`run_audit`: items job, hooks, partition runs) without the metrics job it
    ends with, for the reason `_partitions` gives."""
    from lhl_platform.suites import get_suite
    from orchestration.cli.audit import AuditOptions, run_audit

    assert run_audit(home, get_suite(suite), models, runs, AuditOptions(**options),  # type: ignore[arg-type]
                     say=lambda _: None, metrics=False) == 0


@pytest.fixture
def imported(tmp_path: Path) -> Home:
    """Two models, two runs, 6 contracts each, imported (no corpus)."""
    home = Home.resolve(tmp_path / "home").ensure()
    contracts = [f"c{i}" for i in range(6)]
    _import(home, tmp_path, [r for m in ("a", "b") for run in (1, 2) for r in _rows(m, run, contracts, run)], "h")
    build_warehouse(home)
    return home


# --- a refresh stores what a rebuild stores -----------------------------------------------------------------


def _tables(con: duckdb.DuckDBPyConnection, database: str) -> dict[str, list[tuple[object, ...]]]:
    out = {}
    for table, _ in compared_tables():
        try:
            out[table] = sorted(map(repr, con.execute(f'select * from {database}.main."{table}"').fetchall()))
        except duckdb.CatalogException:
            continue
    return out


def _same_builds(a: Home, b: Home) -> None:
    """Two stored builds hold the same rows in every table, and every ordered mart in the same order."""
    con = duckdb.connect()
    for name, home in (("x", a), ("y", b)):
        con.execute(f"set file_search_path = '{home.warehouse_path}'")
        con.execute(f"attach '{_current(home)}' as {name} (read_only)")
        if name == "x":
            left = _tables(con, "x")
            ordered = {m.name: con.execute(f'select * from x.main."{m.name}"').fetchall()
                       for m in sql_models() if m.ordered and m.layer == "marts"}
        else:
            right = _tables(con, "y")
            for mart, rows in ordered.items():
                assert con.execute(f'select * from y.main."{mart}"').fetchall() == rows, mart
    assert left.keys() == right.keys()
    assert [t for t in left if left[t] != right[t]] == []


def test_a_refresh_stores_what_a_rebuild_stores_after_audits_imports_and_rejudgings(tmp_path):
    home = Home.resolve(tmp_path / "home")
    assert _cli("ingest", "cuad", str(DEMO_DIR), home=home.root) == 0
    for name, model_id in (("lexical", "lexical"), ("sim-omitter", "simulated:omitter")):
        assert _cli("models", "add", name, "--provider", "offline", "--model-id", model_id, home=home.root) == 0
    _audit(home, ["lexical"], [1], contracts=6)
    _matches_the_events(home)
    with read_warehouse(home) as con:
        contracts = [r[0] for r in con.execute("select distinct contract_id from audit_scope order by 1").fetchall()]
    _import(home, tmp_path, _rows("outside", 1, contracts[:4]) + _rows("outside", 2, contracts[:3]), "outside")
    _matches_the_events(home)
    _partitions(home, ["sim-omitter"], [1, 2], contracts=6)
    _matches_the_events(home)
    assert _cli("models", "add", "surface", "--provider", "offline", "--model-id", "overlap", "--role", "judge",
                home=home.root) == 0
    # re-judging recorded extractions with a second judge, then making it the primary one
    _partitions(home, ["lexical"], [1], contracts=6, judge="surface")  # --judge re-judges
    _matches_the_events(home)
    assert _cli("judge", "primary", "surface", home=home.root) == 0
    _matches_the_events(home)
    assert _cli("subset", "create", "four", "--size", "4", home=home.root) == 0
    _import(home, tmp_path, _rows("outside", 3, contracts[:2], seed=1), "outside-3")
    _matches_the_events(home)
    scoped = build_report(home, _scope("four", (1,)), resamples=50)
    # the suites' events are staged incrementally too: an InsufficiencyBench audit, then a ContractScrub one
    for name in ("gold-reader", "premature-closure", "scrub-rules"):
        assert _cli("models", "add", name, "--provider", "offline", "--model-id", name, home=home.root) == 0
    _partitions(home, ["gold-reader"], [1], suite="insufficiency")
    _matches_the_events(home)
    _partitions(home, ["premature-closure"], [1], suite="insufficiency")
    assert _cli("scrub", "build", "--contracts", "2", "--seed", "0", home=home.root) == 0
    _audit(home, ["scrub-rules"], [1], suite="contractscrub")
    _matches_the_events(home)
    with read_warehouse(home) as con:
        suite_rows = [con.execute(f"select count(*) from {mart}").fetchone()[0]
                      for mart in ("insufficiency_leaderboard", "scrub_leaderboard")]
    assert suite_rows == [2, 1]

    rebuilt = Home.resolve(tmp_path / "rebuilt")
    shutil.copytree(home.root, rebuilt.root)
    build_warehouse(rebuilt, force=True)
    _same_builds(home, rebuilt)
    assert build_report(rebuilt, resamples=50) == build_report(home, resamples=50)
    assert build_report(rebuilt, _scope("four", (1,)), resamples=50) == scoped
    memory = memory_warehouse(home)
    try:
        subset_runs = memory.execute("select count(*) from stg_subset_created").fetchone()
    finally:
        memory.close()
    assert subset_runs == (1,)


def _scope(subset: str, runs: tuple[int, ...]) -> object:
    from lhl_platform.warehouse.scope import ScopeRequest

    return ScopeRequest(subset=subset, runs=runs)


def test_a_refresh_stages_only_the_new_segments_and_rewrites_only_the_partitions_they_touch(imported, tmp_path):
    con = duckdb.connect(str(_current(imported)), read_only=True)
    before = dict(con.execute("select tbl || key, file from _lhl_chunks").fetchall())
    staged = con.execute("select count(*) from _lhl_segments").fetchone()
    con.close()
    _import(imported, tmp_path, _rows("a", 3, ["c0", "c1"]), "new")
    assert build_warehouse(imported)
    con = duckdb.connect(str(_current(imported)), read_only=True)
    after = dict(con.execute("select tbl || key, file from _lhl_chunks").fetchall())
    assert con.execute("select count(*) from _lhl_segments").fetchone() == (staged[0] + 1,)  # type: ignore[index]
    con.close()
    rewritten = sorted(k for k in before if after.get(k) != before[k])
    added = sorted(k for k in after if k not in before)
    # The import is a new stream; only the new (model, run) partition's files are written, none rewritten.
    assert rewritten == []
    assert all('"a", 3' in k or k.startswith(("stg_imports", "stg_audit_scope")) for k in added) and added
    assert any(k.startswith("instance_outcomes") for k in added)
    _matches_the_events(imported)


def test_a_refresh_with_nothing_new_writes_nothing(imported):
    record = Store(imported.warehouse_path).current()
    assert build_warehouse(imported) is False
    assert Store(imported.warehouse_path).current() == record


def test_every_partition_declaration_holds_on_the_demo(demo_home):
    """A partitioned model's rows for one partition, computed from its inputs filtered to that partition, are the
    rows the whole computation gives for it (what lets a refresh recompute only some partitions)."""
    con = memory_warehouse(Home.resolve(demo_home))
    checked = 0
    try:
        for model in sql_models():
            if not model.partition_by or model.layer == "staging":
                continue
            keys = ", ".join(model.partition_by)
            for key in con.execute(f"select distinct {keys} from {model.name} order by all limit 3").fetchall():
                where = dict(zip(model.partition_by, key, strict=True))
                views = []
                for name in model.depends_on:
                    columns = {r[0] for r in con.execute(f"describe memory.main.{name}").fetchall()}
                    shared = {c: v for c, v in where.items() if c in columns}
                    if shared:
                        cond = " and ".join(f"{c} is not distinct from ?" for c in shared)
                        con.execute(f"create temp view {name} as select * from memory.main.{name} where "
                                    + cond.replace("?", "{}").format(*map(_literal, shared.values())))
                        views.append(name)
                part = con.execute(f"select * from ({model.sql}) order by all").fetchall()
                for name in views:
                    con.execute(f"drop view temp.main.{name}")
                cond = " and ".join(f"{c} is not distinct from {_literal(v)}" for c, v in where.items())
                whole = con.execute(f"select * from {model.name} where {cond} order by all").fetchall()
                assert [r for r in part if _matches(r, con, model.name, where)] == whole, (model.name, key)
                checked += 1
    finally:
        con.close()
    assert checked > 20


def _literal(value: object) -> str:
    return "null" if value is None else repr(value) if isinstance(value, int) else "'" + str(value) + "'"


def _matches(row: tuple[object, ...], con: duckdb.DuckDBPyConnection, table: str, where: dict[str, object]) -> bool:
    names = [r[0] for r in con.execute(f"describe {table}").fetchall()]
    return all(row[names.index(c)] == v for c, v in where.items())


def test_every_table_a_model_reads_is_in_its_depends_on():
    """A refresh recomputes a model when something it depends on changed: the header must name all it reads."""
    known = {m.name for m in sql_models()} | source_names() | scope_tables() | set(SCOPE_TABLES)
    for model in sql_models():
        if model.layer == "staging":
            continue
        body = re.sub(r"--[^\n]*|'[^']*'", "", model.sql.lower())
        read = set(re.findall(r"\b(?:from|join)\s+([a-z_][a-z0-9_]*)", body)) & known
        read |= set(re.findall(r"\(select\s+[a-z_ ,.*]+\s+from\s+([a-z_][a-z0-9_]*)", body)) & known
        assert read - set(model.depends_on) == set(), model.name


# --- checked like the events --------------------------------------------------------------------------------


def test_an_edited_mart_is_refused_by_report_and_named_by_verify(imported, capsys):
    con = duckdb.connect(str(_current(imported)))
    con.execute("update leaderboard set fp = 0")
    con.close()
    capsys.readouterr()
    assert _cli("report", "--format", "json", home=imported.root) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "lhl verify" in err and "altered" in err
    assert _cli("verify", home=imported.root) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mart leaderboard differs from the events" in err
    assert _cli("warehouse", "rebuild", home=imported.root) == 0
    assert _cli("report", "--format", "json", home=imported.root) == 0
    assert _cli("verify", home=imported.root) == 0
    assert "matches the events" in capsys.readouterr().out


def test_an_edited_partition_file_is_refused_too(imported, capsys):
    con = duckdb.connect(str(_current(imported)), read_only=True)
    (file,) = con.execute("select file from _lhl_chunks where tbl = 'instance_outcomes' limit 1").fetchone()
    con.close()
    path = imported.warehouse_path / file
    edited = duckdb.connect()
    edited.execute(f"copy (select * replace ('FP' as outcome) from read_parquet('{path}')) to '{path}.x' "
                   "(format parquet)")
    os.replace(f"{path}.x", path)
    capsys.readouterr()
    assert _cli("report", home=imported.root) == 1
    assert "altered" in capsys.readouterr().err
    assert _cli("verify", home=imported.root) == 1
    assert "instance_outcomes differs from the events" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["empty build", "garbage build", "garbled record", "record removed",
                                    "partition file removed", "empty partition file"])
def test_a_build_that_cannot_be_read_is_rebuilt_from_the_events_with_a_note(imported, capsys, damage):
    expected = build_report(imported, resamples=50)
    store = Store(imported.warehouse_path)
    con = duckdb.connect(str(_current(imported)), read_only=True)
    (chunk,) = con.execute("select file from _lhl_chunks limit 1").fetchone()
    con.close()
    if damage == "empty build":
        _current(imported).write_bytes(b"")  # what a full disk left behind
    elif damage == "garbage build":
        _current(imported).write_bytes(b"not a database")
    elif damage == "garbled record":
        (store.root / "CURRENT").write_text("{")
    elif damage == "record removed":
        (store.root / "CURRENT").unlink()
    elif damage == "partition file removed":
        (store.root / chunk).unlink()
    else:
        (store.root / chunk).write_bytes(b"")
    capsys.readouterr()
    assert _cli("report", "--format", "json", "--resamples", "50", home=imported.root) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["leaderboard"] == report_json(expected)["leaderboard"]
    if damage != "record removed":  # no record: simply nothing built yet
        assert "rebuilding the warehouse from the events" in err and err.count("\n") == 1
    assert _cli("verify", home=imported.root) == 0


@pytest.mark.parametrize("stale", [False, True])
def test_a_read_only_home_is_reported_on(imported, tmp_path, stale):
    expected = build_report(imported, resamples=50)
    if stale:  # events newer than the build: the marts are computed in memory
        _import(imported, tmp_path, _rows("c", 1, ["c0"]), "late")
    read_only_mount(imported.root)
    try:
        done = _lhl(imported.root, "report", "--format", "json", "--resamples", "50")
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        models = [row["model"] for row in report["leaderboard"]]
        assert models == (["a", "b", "c"] if stale else ["a", "b"])
        if not stale:
            assert report["leaderboard"] == report_json(expected)["leaderboard"]
            assert done.stderr == ""
        else:
            assert "read-only" in done.stderr and done.stderr.count("\n") == 1
    finally:
        subprocess.run(["umount", str(imported.root)], check=True)


# --- concurrent use -----------------------------------------------------------------------------------------


def test_a_reader_reads_the_last_complete_build_while_a_writer_writes(imported, tmp_path):
    before = build_report(imported, resamples=50)
    _import(imported, tmp_path, _rows("c", 1, ["c0", "c1"]), "late")
    store = Store(imported.warehouse_path)
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with store.writing():
            holding.set()
            release.wait(60)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert holding.wait(10)
        started = time.perf_counter()
        during = build_report(imported, resamples=50)
        assert time.perf_counter() - started < 30
        assert during == before  # the current build, as it was: the reader did not wait
    finally:
        release.set()
        thread.join()
    assert [r.model for r in build_report(imported, resamples=50).leaderboard] == ["a", "b", "c"]


def test_a_writer_waits_its_turn_and_says_so(imported, tmp_path):
    _import(imported, tmp_path, _rows("c", 1, ["c0"]), "late")
    # The holder keeps the writer's lock until the test releases it (a line on its stdin), which the test does
    # only once the refresh has said it waits: no fixed sleep the refresh could miss under load.
    holder = subprocess.Popen([sys.executable, "-c", f"""
import sys
from lhl_platform.warehouse.store import Store
with Store({str(imported.warehouse_path)!r}).writing():
    print("holding", flush=True)
    sys.stdin.readline()
print("released", flush=True)
"""], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "holding"
        refresh = subprocess.Popen([sys.executable, "-m", "orchestration.cli", "--home", str(imported.root),
                                    "warehouse", "refresh"], cwd=ROOT, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert refresh.stderr is not None
        first = refresh.stderr.readline()  # blocks until the refresh reports waiting (or ends without doing so)
        assert f"waiting for pid {holder.pid} to finish writing the warehouse" in first, first
        assert refresh.poll() is None  # still waiting: the lock is held
        holder.stdin.write("release\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "released"
        out, err = refresh.communicate(timeout=900)
    finally:
        if holder.poll() is None:
            holder.stdin.close()
        holder.wait(30)
    assert refresh.returncode == 0, first + err
    assert "brought up to date" in out


def test_two_audits_and_eight_reports_on_one_home_at_once_all_succeed(demo_home, tmp_path):
    home = tmp_path / "demo"
    shutil.copytree(demo_home, home)
    audits = [subprocess.Popen([sys.executable, "-m", "orchestration.cli", "--home", str(home), "audit", "--models",
                                model, "--runs", "3", "--contracts", "4"], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
              for model in ("lexical", "sim-omitter")]
    reports = []
    for _ in range(8):
        time.sleep(0.4)
        reports.append(subprocess.Popen([sys.executable, "-m", "orchestration.cli", "--home", str(home), "report",
                                         "--format", "json", "--resamples", "50"], cwd=ROOT, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL))
    for proc in [*audits, *reports]:
        out, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, err[-2000:]
        if proc in reports:
            assert json.loads(out)["leaderboard"]
    done = _lhl(home, "report", "--format", "json", "--resamples", "50", "--runs", "3")
    assert done.returncode == 0, done.stderr
    rows = {r["model"]: r for r in json.loads(done.stdout)["leaderboard"]}
    # every instance of both new partitions (4 contracts each: the property is the sharing, not the size), none
    # missing
    for model in ("lexical", "sim-omitter"):
        assert rows[model]["n"] + rows[model]["missing_rows"] == 4 * 41 and rows[model]["runs"] == 1
    verified = _lhl(home, "verify")
    assert verified.returncode == 0, verified.stderr
