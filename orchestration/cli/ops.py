"""`lhl verify`, `lhl warehouse`, `lhl home` and `lhl ui`: the evidence, its store, its projection and the Dagster
UI for this home."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import TYPE_CHECKING

from lhl_platform.home import Home
from orchestration.cli.app import Cli, CliError

if TYPE_CHECKING:
    from lhl_platform.events.store_shared import SharedStore


def cmd_verify(args: argparse.Namespace, home: Home) -> int:
    import json

    from lhl_platform.events.verify import export_head, verify_home
    from lhl_platform.warehouse.verify import verify_projection

    # The projection is checked too, once the evidence it is rebuilt from has verified.
    report = verify_home(home, projection=None if args.export else verify_projection)
    if not report.ok:
        what = "warehouse differs from the events" if report.evidence_ok else "evidence altered"
        raise CliError(f"{what}: {report.summary()}")
    if args.export:
        print(json.dumps(export_head(home.events, report).as_json(), indent=1))
        return 0
    print(f"event log intact: {report.streams} streams, {report.segments} segments, {report.events} events")
    print(f"corpora intact: {report.corpora} corpora, {report.corpus_files} files")
    from lhl_platform.review.ledger import review_summary

    reviewed = review_summary(home)  # decisions are events of the log just verified
    if reviewed:
        print(reviewed)
    if report.projection is not None:
        print(f"warehouse: {report.projection}")
    head = report.checkpoint
    if head is not None and head.entries:
        print(f"checkpoint: {head.entries} entries, head {head.hash}")
    if report.unanchored:
        print(f"{len(report.unanchored)} stream(s) have events newer than the checkpoint "
              "(anchored by their next write or by `lhl verify --export`)")
    return 0


def cmd_warehouse_rebuild(args: argparse.Namespace, home: Home) -> int:
    import time

    from lhl_platform.warehouse.build import build_warehouse

    started = time.perf_counter()
    build_warehouse(home, force=True)
    print(f"warehouse rebuilt from the events in {time.perf_counter() - started:.1f}s ({home.warehouse_path})")
    return 0


def cmd_warehouse_refresh(args: argparse.Namespace, home: Home) -> int:
    import time

    from lhl_platform.warehouse.build import build_warehouse

    started = time.perf_counter()
    changed = build_warehouse(home)
    took = time.perf_counter() - started
    print(f"warehouse brought up to date in {took:.2f}s" if changed else "warehouse already up to date")
    return 0


def _shared_store(events_url: str | None, catalog_url: str | None) -> SharedStore:
    from lhl_platform.events.store import CATALOG_URL_ENV, EVENTS_URL_ENV
    from lhl_platform.events.store_shared import shared_store

    events_url = events_url or os.environ.get(EVENTS_URL_ENV, "").strip()
    catalog_url = catalog_url or os.environ.get(CATALOG_URL_ENV, "").strip()
    if not events_url or not catalog_url:
        raise CliError(f"no shared store: give --events-url and --catalog-url (or set {EVENTS_URL_ENV} and "
                       f"{CATALOG_URL_ENV})")
    return shared_store(events_url, catalog_url)


def cmd_home_migrate(args: argparse.Namespace, home: Home) -> int:
    from lhl_platform.events.store_migrate import migrate

    store = _shared_store(args.events_url, args.catalog_url)
    if not (home.root / "events" / "STREAMS").exists():
        raise CliError(f"{home.root} has no folder event log to copy")
    done = migrate(home.root / "events", home.corpora_dir, store)
    print(f"copied {done.copied} segments into {store.objects.where(store.objects.prefix)} "
          f"({done.present} already there)")
    print(f"copy verified from the shared store alone: {done.check.streams} streams, {done.check.segments} "
          f"segments, {done.check.events} events, {done.check.objects} objects read back, every head as in "
          f"{home.root}")
    print("this folder home is unchanged; other machines attach the shared store with LHL_EVENTS_URL and "
          "LHL_CATALOG_URL and a new LHL_HOME each")
    return 0


def cmd_home_gc(args: argparse.Namespace, home: Home) -> int:
    from datetime import timedelta

    from lhl_platform.report.shared import collect_shared_reports
    from lhl_platform.warehouse.snapshots import collect_snapshots

    if args.older_than_hours < 0:
        raise CliError("--older-than-hours must not be negative")
    if args.keep_snapshots < 0:
        raise CliError("--keep-snapshots must not be negative")
    store = _shared_store(None, None)
    deleted, kept = store.gc(timedelta(hours=args.older_than_hours))
    print(f"removed {deleted} uncommitted segment objects older than {args.older_than_hours:g}h; "
          f"{kept} committed ones kept")
    removed, snapshots = collect_snapshots(store, args.keep_snapshots, timedelta(hours=args.older_than_hours))
    print(f"removed {removed} warehouse snapshots (beyond the newest {args.keep_snapshots} of each layout, or "
          f"never recorded); {snapshots} kept")
    reports = collect_shared_reports(store, args.keep_snapshots)
    print(f"removed {reports} shared reports (all but those of the newest {args.keep_snapshots} states of the "
          "events that have any)")
    return 0


PORTS = range(1, 65536)


def serving_problem(host: str, port: int) -> str | None:
    """Why the UI could not serve on host:port (not a TCP port, an unknown host, a port in use), or None. Checked
    before anything starts, so that the address `lhl ui` prints is the one it serves."""
    import socket

    if port not in PORTS:
        return f"--port {port} is not a TCP port: give a number from 1 to 65535 (default 3000)"
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        return f"--host {host}: cannot serve on it ({exc.strerror})"
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: a closed port's TIME_WAIT
        try:
            probe.bind(address)
        except OSError as exc:
            return f"cannot serve on {host}:{port}: {exc.strerror} (give another --port)"
    return None


def cmd_ui(args: argparse.Namespace, home: Home) -> int:
    from orchestration.ui_process import quiet_env, run_process_tree

    problem = serving_problem(args.host, args.port)
    if problem is not None:
        raise CliError(problem)  # before the home is touched or any process starts
    home.ensure()
    env = quiet_env({**os.environ, "DAGSTER_HOME": str(home.dagster_dir), "LHL_HOME": str(home.root)})
    # The webserver behind the loopback guard (orchestration/ui_guard.py), with a daemon of its own.
    command = [sys.executable, "-m", "orchestration.webserver", "--with-daemon", "-m", "orchestration.definitions",
               "--host", args.host, "--port", str(args.port)]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Dagster UI for {home.root} on http://{shown}:{args.port} (Ctrl-C to stop)", flush=True)
    # SIGTERM, SIGINT or SIGHUP stops the whole tree (webserver, daemon, code servers); the tree never
    # reads input, and runs in a session of its own, away from the terminal.
    return run_process_tree(command, env=env, stdin=subprocess.DEVNULL)


def register(cli: Cli) -> None:
    verify = cli.add("verify", cmd_verify, "check the event log, the checkpoint, the stored corpora and the warehouse "
                     "(rebuilt from the events and compared); non-zero exit when anything was altered, removed or "
                     "rolled back")
    verify.add_argument("--export", action="store_true",
                        help="print the checkpoint head (JSON) to keep elsewhere, e.g. with a notary")
    cli.group("warehouse", "the DuckDB projection of the events (built and refreshed by every command that needs it)")
    cli.add("refresh", cmd_warehouse_refresh, "bring the warehouse up to date, reading only the new events",
            "warehouse")
    cli.add("rebuild", cmd_warehouse_rebuild, "rebuild the whole warehouse from the events (gives the same marts as "
            "a refresh)", "warehouse")
    cli.group("home", "the home's event store: copy a folder home into a shared store, collect leftovers")
    migrate = cli.add("migrate", cmd_home_migrate, "copy this folder home's events and corpora into the shared store "
                      "(object storage + PostgreSQL) and verify the copy from the shared store alone", "home")
    migrate.add_argument("--events-url", help="s3://bucket/prefix (default: LHL_EVENTS_URL)")
    migrate.add_argument("--catalog-url", help="postgresql://... (default: LHL_CATALOG_URL)")
    gc = cli.add("gc", cmd_home_gc, "remove segment objects of the shared store that no append committed "
                 "(left by writers that died between upload and commit) and old warehouse snapshots", "home")
    gc.add_argument("--older-than-hours", type=float, default=1.0,
                    help="only uncommitted objects at least this old, so appends and snapshot uploads in flight "
                    "keep theirs (default 1)")
    gc.add_argument("--keep-snapshots", type=int, default=3, metavar="N",
                    help="warehouse snapshots kept of each layout, the newest, and the states of the events whose "
                    "shared reports are kept (default 3)")
    ui = cli.add("ui", cmd_ui, "the Dagster UI for this home (lineage, partitions, checks, schedules)")
    ui.add_argument("--host", default="127.0.0.1")
    ui.add_argument("--port", type=int, default=3000, help="the TCP port, 1 to 65535 (default 3000)")
