"""Benchmark: a new pod's first report on a shared home, with and without warehouse snapshots, beside a warm home.

For each scale (`--runs`: 5 models x runs x 510 contracts x 41 clause types, offline outcomes imported with
`lhl import outcomes` into a folder home, then copied into a fresh shared store with `lhl home migrate`), on
moto's S3 server and a throwaway PostgreSQL on loopback:

* first pod: `lhl report --format json` on an empty home, no snapshot yet (builds from every segment, then
  publishes one; the process waits for its upload before it exits, so this time includes it);
* warm: the same home's report again (best of 3);
* cold, snapshots off: an empty home with `LHL_WAREHOUSE_SNAPSHOTS=off` (a rebuild from every segment);
* cold, snapshot: an empty home that restores the first pod's snapshot (nothing after it to stage);
* of which the warehouse: an empty home's `lhl warehouse refresh` alone, restoring the snapshot;
* of which the segments: an empty home's mirror fetched and checked alone (`EventLog.segments()`).

Prints each time, the cold/warm ratios and the snapshot's bytes per instance.

    python benchmarks/cold_start.py [--runs 3 15]
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

os.environ.setdefault("LHL_CACHE_KEY_FILE", str(Path(tempfile.mkdtemp(prefix="lhl-bench-key-")) / "key"))

import boto3  # noqa: E402
import pandas as pd  # noqa: E402
import psycopg  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

from benchmarks.metrics_at_scale import synthetic_outcomes  # noqa: E402
from lhl_platform.events.store import CATALOG_URL_ENV, EVENTS_URL_ENV  # noqa: E402
from lhl_platform.warehouse.snapshots import SNAPSHOTS_ENV  # noqa: E402
from tests.test_publish import postgres  # noqa: E402  (the tests' throwaway PostgreSQL server)

LHL = [sys.executable, "-m", "orchestration.cli"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def outcomes(runs: int) -> pd.DataFrame:
    """5 models x `runs` runs (a multiple of 3) x 510 contracts x 41 clause types."""
    frames = []
    for block in range(runs // 3):
        frame = synthetic_outcomes(seed=block)
        frame["run"] = frame["run"] + 3 * block
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([*LHL, *argv], check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
    return time.perf_counter() - started


def segments_alone(home: Path, env: dict[str, str]) -> float:
    code = "import sys; from lhl_platform.events.log import EventLog; EventLog(sys.argv[1]).segments()"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(home / "events")], check=True, env=env, cwd=ROOT)
    return time.perf_counter() - started


def scale(runs: int, work: Path, store_env: dict[str, str], catalog: str) -> None:
    base = {k: v for k, v in os.environ.items() if k not in (EVENTS_URL_ENV, CATALOG_URL_ENV, SNAPSHOTS_ENV)}
    folder, data = work / "folder", work / "outcomes.parquet"
    frame = outcomes(runs)
    frame.to_parquet(data, index=False)
    instances = len(frame)
    del frame
    imported = timed(["--home", str(folder), "import", "outcomes", str(data)], base)
    shared = {**base, **store_env}
    timed(["--home", str(folder), "home", "migrate"], shared)
    with psycopg.connect(catalog) as conn:
        segments = conn.execute("SELECT count(*) FROM lhl_segments").fetchone()[0]
    print(f"{instances:,} instances ({runs} runs), {segments} segments; folder import {imported:.1f}s", flush=True)
    report = ["report", "--format", "json"]
    first = timed(["--home", str(work / "first-pod"), *report], shared)
    warm = min(timed(["--home", str(work / "first-pod"), *report], shared) for _ in range(3))
    off = timed(["--home", str(work / "pod-off"), *report], {**shared, SNAPSHOTS_ENV: "off"})
    cold = timed(["--home", str(work / "pod-snapshot"), *report], shared)
    restore = timed(["--home", str(work / "pod-refresh"), "warehouse", "refresh"], shared)
    fetch = segments_alone(work / "pod-segments", shared)
    with psycopg.connect(catalog) as conn:
        (size,) = conn.execute("SELECT bytes FROM lhl_warehouse_snapshots ORDER BY created_at LIMIT 1").fetchone()
    print(f"  first pod (builds, publishes):   {first:7.2f}s", flush=True)
    print(f"  warm home:                       {warm:7.2f}s")
    print(f"  cold pod, snapshots off:         {off:7.2f}s   x{off / warm:.1f} the warm home")
    print(f"  cold pod, restores the snapshot: {cold:7.2f}s   x{cold / warm:.1f} the warm home")
    print(f"  of which the warehouse:          {restore:7.2f}s   (`lhl warehouse refresh` alone, another empty home)")
    print(f"  of which the segments' mirror:   {fetch:7.2f}s   (fetched and checked alone, on another empty home)")
    print(f"  snapshot: {size:,} bytes, {size / instances:.1f} bytes an instance", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[3, 15],
                        help="runs per model at each scale, multiples of 3 (3: 0.31 M instances, 15: 1.56 M)")
    args = parser.parse_args()
    server_gen = postgres.__wrapped__()  # type: ignore[attr-defined]
    host_url, password = next(server_gen)
    port = _free_port()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    s3.start()
    try:
        os.environ.update({"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "bench",
                           "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1"})
        boto3.client("s3").create_bucket(Bucket="lhl-bench")
        server = host_url.replace("postgresql://lhl@", f"postgresql://lhl:{password}@").rsplit("/", 1)[0]
        for runs in args.runs:
            name = "cold_" + uuid.uuid4().hex[:8]
            with psycopg.connect(host_url, password=password, autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {name}")
            env = {EVENTS_URL_ENV: f"s3://lhl-bench/{name}", CATALOG_URL_ENV: f"{server}/{name}"}
            with tempfile.TemporaryDirectory(prefix="lhl-cold-") as tmp:
                scale(runs, Path(tmp), env, f"{server}/{name}")
    finally:
        s3.stop()
        next(server_gen, None)


if __name__ == "__main__":
    main()
