"""Benchmark: the event log on the shared store (moto's S3 server + PostgreSQL on loopback) beside the folder.

In one run, on this machine, each measured the same way on both stores:

* append throughput: `--commits` commits of `--events` events each, one writer (events/s and commits/s);
* the event-log part of a report's refresh: the committed segments a warehouse refresh reads, checked
  (`EventLog.segments()`), on a home that has read nothing yet (cold: for the shared store every segment is
  fetched from the bucket, `LHL_S3_FETCHERS` at a time, and once more one at a time on another empty home, to
  show what fetching them together saves) and again with nothing new (warm: the folder rehashes nothing; the
  shared store asks the catalog for rows it has not read).

Loopback servers measure the client's work and the round trips' count, not a real network's latency: a real
bucket and database add their latency to every commit. Ratios are shared / folder (time) and are printed.

    python benchmarks/shared_store.py [--commits 200] [--events 50]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

os.environ.setdefault("LHL_CACHE_KEY_FILE", str(Path(tempfile.mkdtemp(prefix="lhl-bench-key-")) / "key"))

from benchmarks.loopback import loopback_store  # noqa: E402
from lhl_platform.clause.extraction.events import ExtractionEvent, ExtractionFailed  # noqa: E402
from lhl_platform.events.log import EventLog  # noqa: E402
from lhl_platform.events.store import CATALOG_URL_ENV, EVENTS_URL_ENV, FOLDER, SegmentStore  # noqa: E402
from lhl_platform.events.store_objects import FETCHERS_ENV, fetchers  # noqa: E402
from lhl_platform.events.store_shared import shared_store  # noqa: E402


def _append(log: EventLog, commits: int, events: int) -> float:
    started = time.perf_counter()
    with log.writer("bench", flush_every=events) as w:
        for i in range(commits * events):
            w.append(ExtractionEvent.FAILED, f"c{i}", f"k{i}",
                     ExtractionFailed(model="m", run=1, contract_id=f"c{i}", stage="call", reason="benchmark"))
    return time.perf_counter() - started


def _read(root: Path, store: SegmentStore) -> float:
    started = time.perf_counter()
    EventLog(root, store=store).segments()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument("--events", type=int, default=50)
    args = parser.parse_args()
    with loopback_store() as new_store:
        env = new_store("bench")
        shared = shared_store(env[EVENTS_URL_ENV], env[CATALOG_URL_ENV])
        work = Path(tempfile.mkdtemp(prefix="lhl-bench-"))
        n = args.commits * args.events
        rows = []
        for label, store in (("folder", FOLDER), ("shared", shared)):
            took = _append(EventLog(work / f"{label}-writer" / "events", store=store), args.commits, args.events)
            reader = work / f"{label}-writer" / "events" if store is FOLDER else work / f"{label}-reader" / "events"
            cold = _read(reader, store)
            warm = _read(reader, store)
            rows.append((label, took, cold, warm))
            print(f"{label:6}  append {n / took:9.0f} events/s  {args.commits / took:7.1f} commits/s  "
                  f"refresh cold {cold * 1000:7.1f} ms  warm {warm * 1000:7.1f} ms", flush=True)
        os.environ[FETCHERS_ENV] = "1"
        serial = _read(work / "shared-reader-serial" / "events", shared)
        del os.environ[FETCHERS_ENV]
        print(f"shared  refresh cold, one segment at a time {serial * 1000:7.1f} ms", flush=True)
        (_, f_took, f_cold, f_warm), (_, s_took, s_cold, s_warm) = rows
        print(f"shared / folder: append time x{s_took / f_took:.1f}, refresh cold x{s_cold / f_cold:.1f} "
              f"(x{serial / f_cold:.1f} one at a time), refresh warm x{s_warm / f_warm:.1f}  ({args.commits} commits "
              f"of {args.events} events; {fetchers()} fetchers)")


if __name__ == "__main__":
    main()
