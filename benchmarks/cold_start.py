"""Benchmark: a new pod's first report on a shared home, with and without warehouse snapshots and shared reports,
beside a warm home.

For each scale (`--runs`: 5 models x runs x 510 contracts x 41 clause types, offline outcomes imported with
`lhl import outcomes` into a folder home, then copied into a fresh shared store with `lhl home migrate`), on
moto's S3 server and a throwaway PostgreSQL on loopback:

* first pod: `lhl report --format json` on an empty home, nothing published yet (builds from every segment, then
  publishes its snapshot and its report; the process waits for the snapshot's upload before it exits, so this time
  includes it);
* warm: the same home's report again (best of 3);
* cold, nothing shared: an empty home with `LHL_WAREHOUSE_SNAPSHOTS=off` and `LHL_SHARED_REPORTS=off` (a rebuild
  from every segment);
* cold, snapshot: an empty home with `LHL_SHARED_REPORTS=off`, which restores the first pod's snapshot (nothing
  after it to stage) and computes the report: a report no machine has printed at these events;
* cold, shared report: an empty home with the defaults, asked the report the first pod printed (the goal's case);
* of which the warehouse: an empty home's `lhl warehouse refresh` alone, restoring the snapshot;
* of which the segments: an empty home's mirror fetched and checked alone (`EventLog.segments()`).

Prints each time, the cold/warm ratios, the goal's two tests (the cold pod within 2x the warm home at the largest
scale; that ratio within 1.3x of the smallest scale's) and the snapshot's bytes per instance.

    python benchmarks/cold_start.py [--runs 3 15]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

os.environ.setdefault("LHL_CACHE_KEY_FILE", str(Path(tempfile.mkdtemp(prefix="lhl-bench-key-")) / "key"))

import pandas as pd  # noqa: E402
import psycopg  # noqa: E402

from benchmarks.loopback import loopback_store  # noqa: E402
from benchmarks.metrics_at_scale import synthetic_outcomes  # noqa: E402
from lhl_platform.events.store import CATALOG_URL_ENV, EVENTS_URL_ENV  # noqa: E402
from lhl_platform.report.shared import SWITCH as SHARED_REPORTS_ENV  # noqa: E402
from lhl_platform.warehouse.snapshots import SNAPSHOTS_ENV  # noqa: E402

LHL = [sys.executable, "-m", "orchestration.cli"]


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


def scale(runs: int, work: Path, store_env: dict[str, str]) -> tuple[int, float, float]:
    """Measures one scale and prints it; returns (instances, warm, cold pod with the shared report)."""
    base = {k: v for k, v in os.environ.items()
            if k not in (EVENTS_URL_ENV, CATALOG_URL_ENV, SNAPSHOTS_ENV, SHARED_REPORTS_ENV)}
    folder, data = work / "folder", work / "outcomes.parquet"
    frame = outcomes(runs)
    frame.to_parquet(data, index=False)
    instances = len(frame)
    del frame
    imported = timed(["--home", str(folder), "import", "outcomes", str(data)], base)
    shared = {**base, **store_env}
    timed(["--home", str(folder), "home", "migrate"], shared)
    catalog = store_env[CATALOG_URL_ENV]
    with psycopg.connect(catalog) as conn:
        segments = conn.execute("SELECT count(*) FROM lhl_segments").fetchone()[0]
    print(f"{instances:,} instances ({runs} runs), {segments} segments; folder import {imported:.1f}s", flush=True)
    report = ["report", "--format", "json"]
    first = timed(["--home", str(work / "first-pod"), *report], shared)
    warm = min(timed(["--home", str(work / "first-pod"), *report], shared) for _ in range(3))
    off = timed(["--home", str(work / "pod-off"), *report],
                {**shared, SNAPSHOTS_ENV: "off", SHARED_REPORTS_ENV: "off"})
    restored = timed(["--home", str(work / "pod-snapshot"), *report], {**shared, SHARED_REPORTS_ENV: "off"})
    cold = timed(["--home", str(work / "pod-shared"), *report], shared)
    restore = timed(["--home", str(work / "pod-refresh"), "warehouse", "refresh"], shared)
    fetch = segments_alone(work / "pod-segments", shared)
    fetched = sum(1 for _ in (work / "pod-shared").rglob("*.parquet"))
    with psycopg.connect(catalog) as conn:
        (size,) = conn.execute("SELECT bytes FROM lhl_warehouse_snapshots ORDER BY created_at LIMIT 1").fetchone()
        (shared_bytes,) = conn.execute("SELECT max(octet_length(body)) FROM lhl_shared_reports").fetchone()
    print(f"  first pod (builds, publishes):     {first:7.2f}s", flush=True)
    print(f"  warm home:                         {warm:7.2f}s")
    print(f"  cold pod, nothing shared:          {off:7.2f}s   x{off / warm:.1f} the warm home")
    print(f"  cold pod, restores the snapshot:   {restored:7.2f}s   x{restored / warm:.1f} the warm home "
          "(a report no machine printed at these events)")
    print(f"  cold pod, the shared report:       {cold:7.2f}s   x{cold / warm:.2f} the warm home "
          f"({fetched} Parquet files fetched; the report {shared_bytes:,} bytes)")
    print(f"  of which the warehouse:            {restore:7.2f}s   (`lhl warehouse refresh` alone, another empty home)")
    print(f"  of which the segments' mirror:     {fetch:7.2f}s   (fetched and checked alone, on another empty home)")
    print(f"  snapshot: {size:,} bytes, {size / instances:.1f} bytes an instance", flush=True)
    return instances, warm, cold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[3, 15],
                        help="runs per model at each scale, multiples of 3 (3: 0.31 M instances, 15: 1.56 M)")
    args = parser.parse_args()
    measured = []
    with loopback_store() as new_store:
        for runs in args.runs:
            with tempfile.TemporaryDirectory(prefix="lhl-cold-") as tmp:
                measured.append(scale(runs, Path(tmp), new_store("cold")))
    if len(measured) > 1:
        (small, s_warm, s_cold), (large, l_warm, l_cold) = measured[0], measured[-1]
        growth = (l_cold / l_warm) / (s_cold / s_warm)
        print(f"goal at {large:,} instances: the cold pod x{l_cold / l_warm:.2f} the warm home "
              f"({'within' if l_cold <= 2 * l_warm else 'NOT within'} 2x); that ratio x{growth:.2f} the one at "
              f"{small:,} ({'within' if growth <= 1.3 else 'NOT within'} 1.3x)")


if __name__ == "__main__":
    main()
