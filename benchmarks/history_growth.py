"""Benchmark: a year of monitoring. History grows in steps; per step, what one more small partition costs.

History is synthetic outcomes brought in with `lhl import outcomes` (as the issue's own measurement did): ten
models audited on the full 510-contract corpus, one run a week (partition i is model i mod 10, run i div 10 + 1;
20,910 instances each), imported twelve partitions a file. Beside them a monitored model, `watch`, is audited
every week on the same 5 contracts. At each step (0.25 M, 1.5 M and 5 M instances by default) it measures,
interleaved with the same measurement on an empty home (one that holds only `watch`'s partitions) so that the
machine's load hits both alike:

- refresh: the time to bring the warehouse up to date after one 5-contract partition (205 instances: `watch`'s
  next run) was imported, timed inside a fresh process around `build_warehouse` (the interpreter's start-up and
  imports excluded: `lhl import outcomes` pays them anyway); the same partition in both homes, so the ratio is
  what the history costs;
- also the refresh after 5 contracts of one of the ten models' next run (a partition of a model with a history of
  its own; an import records the contracts it covers, so it is a 5-contract partition too);
- report: `lhl report --format json` beyond the CLI's start-up (`lhl --help`), best of three;
- storage: bytes of the home's events and warehouse per instance.

    python benchmarks/history_growth.py [--steps 0.25,1.5,5] [--repeats 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from lhl_platform.domain.taxonomy import CLAUSE_TYPES

CONTRACTS = np.array([f"contract-{i:04d}" for i in range(510)])
PER_PARTITION = len(CONTRACTS) * len(CLAUSE_TYPES)  # 20,910
MODELS = [f"model-{i:02d}" for i in range(10)]
MISMATCH = np.array(["missing_condition", "extra_condition", "scope", "numeric", "temporal", "obligation", "other"])
BATCH = 12  # partitions per imported file (about 250,000 rows)
TARGETS = {"refresh_ratio": 1.5, "report_beyond_startup_s": 2.0, "bytes_per_instance": 200}


def partition(index: int, contracts: np.ndarray = CONTRACTS, run: int | None = None) -> pd.DataFrame:
    """The outcomes of partition `index` (model index mod 10, run index div 10 + 1) on these contracts."""
    model = MODELS[index % len(MODELS)]
    run = index // len(MODELS) + 1 if run is None else run
    gt = np.random.default_rng(0).random((len(CONTRACTS), len(CLAUSE_TYPES))) < 6702 / 20910  # the oracle
    rows = np.searchsorted(CONTRACTS, contracts)
    gt = gt[rows]
    rng = np.random.default_rng([index, run])
    far, frr, hal = 0.05 + 0.02 * (index % 7), 0.05 + 0.015 * (index % 5), 0.3 + 0.03 * (index % 9)
    pred = np.where(gt, rng.random(gt.shape) >= frr, rng.random(gt.shape) < far)
    tp = gt & pred
    contradicted = tp & (rng.random(gt.shape) < hal)
    kind = rng.choice(len(MISMATCH), size=gt.shape, p=[0.2, 0.15, 0.15, 0.15, 0.15, 0.1, 0.1])
    return pd.DataFrame({
        "model": model, "run": run, "contract_id": np.repeat(contracts, len(CLAUSE_TYPES)),
        "clause_type": np.tile(np.array(CLAUSE_TYPES), len(contracts)), "gt_present": gt.ravel(),
        "predicted_present": pred.ravel(),
        "verdict": np.where(tp, np.where(contradicted, "contradicted", "supported"), "").ravel(),
        "mismatch_type": np.where(contradicted, MISMATCH[kind], np.where(tp, "none", "")).ravel()})


class Home:
    """One benchmark home and the partitions it holds."""

    def __init__(self, root: Path, work: Path) -> None:
        self.root, self.work = root, work
        self.partitions = 0  # full partitions of history
        self.small = 0  # 5-contract partitions of the ten models added since
        self.watched = 0  # runs of `watch`
        self.instances = 0

    def lhl(self, *args: str, quiet: bool = True) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "orchestration.cli", "--home", str(self.root), *args], check=True,
                       stdout=subprocess.DEVNULL if quiet else None, stderr=subprocess.DEVNULL if quiet else None)
        return time.perf_counter() - started

    def grow(self, partitions: int) -> None:
        """Import full partitions until the home holds this many."""
        while self.partitions < partitions:
            upto = min(partitions, self.partitions + BATCH)
            frame = pd.concat([partition(i) for i in range(self.partitions, upto)], ignore_index=True)
            path = self.work / f"history-{self.partitions:04d}.parquet"
            frame.to_parquet(path, index=False)
            self.lhl("import", "outcomes", str(path))
            path.unlink()
            self.instances += len(frame)
            self.partitions = upto

    def small_partition(self, watch: bool = True) -> Path:
        """The next 5-contract partition: `watch`'s next run (always the same 5 contracts), or 5 contracts of one
        of the ten models' next run (runs from 100 on, which the history never reaches)."""
        if watch:
            self.watched += 1
            frame = partition(0, CONTRACTS[:5], run=self.watched).assign(model="watch")
        else:
            index = self.partitions + self.small
            frame = partition(index, CONTRACTS[(5 * index) % 505:][:5], run=100 + self.small // len(MODELS))
            self.small += 1
        path = self.work / f"small-{self.root.name}-{self.small}.parquet"
        frame.to_parquet(path, index=False)
        self.instances += len(frame)
        return path

    def refresh_after_small_partition(self, watch: bool = True) -> float:
        """Import one 5-contract partition without building, then time the refresh in a fresh process."""
        path = self.small_partition(watch)
        code = f"""
import time
import lhl_platform.catalog
from pathlib import Path
from lhl_platform.home import Home
from lhl_platform.clause.importer import import_outcomes
from lhl_platform.warehouse.build import build_warehouse
home = Home.resolve({str(self.root)!r})
import_outcomes(home, Path({str(path)!r}))
started = time.perf_counter()
assert build_warehouse(home)
print(time.perf_counter() - started)
"""
        done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
        path.unlink()
        return float(done.stdout.strip().splitlines()[-1])

    def report(self) -> float:
        return min(self.lhl("report", "--format", "json") for _ in range(3))

    def bytes(self) -> tuple[int, int]:
        def size(folder: Path) -> int:
            return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0

        return size(self.root / "events"), size(self.root / "warehouse")


def startup() -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "orchestration.cli", "--help"], check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="0.25,1.5,5", help="history sizes in millions of instances")
    parser.add_argument("--repeats", type=int, default=3, help="refreshes measured per step and home (median)")
    parser.add_argument("--keep", help="build the homes in this folder and keep them")
    args = parser.parse_args()
    steps = [float(s) for s in args.steps.split(",")]
    work = Path(args.keep or tempfile.mkdtemp(prefix="lhl-history-"))
    work.mkdir(parents=True, exist_ok=True)
    big, empty = Home(work / "history", work), Home(work / "empty", work)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start; home in {work}")
    first = empty.refresh_after_small_partition()  # its first build: nothing to refresh from
    big.refresh_after_small_partition()
    print(f"empty home, first build (one 5-contract partition): {first:.2f}s")
    print(f"{'instances':>10} | {'refresh':>8} {'empty':>7} {'ratio':>6} | {'model-xx':>8} | {'report':>7} "
          f"{'beyond':>7} | {'events':>7} {'wareh.':>7} {'total':>7} B/instance")
    try:
        for step in steps:
            big.grow(max(1, round(step * 1e6 / PER_PARTITION)))
            refreshes, baselines, wide = [], [], []
            for _ in range(args.repeats):  # interleaved, so both see the same load
                baselines.append(empty.refresh_after_small_partition())
                refreshes.append(big.refresh_after_small_partition())
            for _ in range(args.repeats):
                wide.append(big.refresh_after_small_partition(watch=False))
            refresh, baseline = statistics.median(refreshes), statistics.median(baselines)
            start = startup()
            report = big.report()
            events, warehouse = big.bytes()
            n = big.instances
            print(f"{n:>10,} | {refresh:7.2f}s {baseline:6.2f}s {refresh / baseline:5.2f}x | "
                  f"{statistics.median(wide):7.2f}s | {report:6.2f}s {report - start:6.2f}s | {events / n:7.1f} "
                  f"{warehouse / n:7.1f} {(events + warehouse) / n:7.1f}   (load {os.getloadavg()[0]:.1f}; refreshes "
                  f"{', '.join(f'{r:.2f}' for r in refreshes)}; empty {', '.join(f'{b:.2f}' for b in baselines)}; "
                  f"model-xx {', '.join(f'{w:.2f}' for w in wide)}; start-up {start:.2f}s)", flush=True)
        print(f"targets at the last step: refresh <= {TARGETS['refresh_ratio']}x the empty home's, report <= "
              f"{TARGETS['report_beyond_startup_s']} s beyond start-up, <= {TARGETS['bytes_per_instance']} bytes "
              "per instance (events + warehouse)")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
