"""Benchmark: the real `lhl audit` against a loopback OpenAI-compatible fake, beside a bare asyncio+httpx client.

Each round runs, on the same fake (50 ms latency, answers rendered once at start-up):

* `lhl audit` as a user runs it (a separate process: Dagster runs, the OpenAI SDK, the event log with its
  group commits, the judge's verdicts, progress on stderr, the SQL models), auditing all contracts of the
  corpus (510 for CUAD v1) for one new run at concurrency C, one call per contract;
* a bare client: asyncio and httpx, sending the same request bodies at the same concurrency and parsing
  each answer's JSON, nothing else.

Both rates are taken the same way, from the server's own clock: calls answered divided by the time from the
first request's arrival to the last answer. The ideal is C / latency (640 calls/s at C=32, 50 ms); each
rate is printed with its ratio to the ideal, and the audit's with its ratio to the bare client's. The
machine may be shared, so rounds alternate and the best and the median of each are reported.

    python benchmarks/audit_throughput.py [--cuad PATH] [--rounds 5] [--concurrency 32] [--latency 0.05]
        [--failure-share 0.2]   # also answer that share with 429 (Retry-After) or 500: nothing may be lost
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from fake_openai_server import start, stats  # noqa: E402

from lhl_platform.clause.extraction.events import ExtractionEvent  # noqa: E402
from lhl_platform.clause.extraction.prompts import extraction_messages  # noqa: E402
from lhl_platform.clause.extraction.task import ExtractionOutput  # noqa: E402
from lhl_platform.corpus.store import load_corpus  # noqa: E402
from lhl_platform.domain.taxonomy import CLAUSE_TYPES  # noqa: E402
from lhl_platform.home import Home  # noqa: E402
from lhl_platform.judging.events import VerdictEvent  # noqa: E402
from lhl_platform.providers.llm.schema import strict_json_schema  # noqa: E402

DEFAULT_CUAD = Path(os.environ.get("LHL_CUAD_DIR", ROOT.parent / "shared" / "cuad_v1"))


@dataclass
class Round:
    calls: int
    window_s: float
    wall_s: float = 0.0

    @property
    def rate(self) -> float:
        return self.calls / self.window_s if self.window_s > 0 else 0.0


def lhl(home: Path, *args: str, log: Path | None = None) -> float:
    """Run one `lhl` command in its own process, as a user would; returns its wall time."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("API_KEY")}
    started = time.perf_counter()
    with (log.open("a") if log else open(os.devnull, "w")) as err:
        subprocess.run([sys.executable, "-m", "orchestration.cli", "--home", str(home), *args], cwd=ROOT, env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=err, timeout=1800)
    return time.perf_counter() - started


def window(url: str) -> Round:
    tally = stats(url, reset=True)
    if not tally["first"] or not tally["last"]:
        return Round(0, 0.0)
    return Round(int(tally["answered"]), float(tally["last"]) - float(tally["first"]))


async def bare_client(url: str, requests: list[dict[str, object]], concurrency: int) -> int:
    """The reference: the same requests at the same concurrency through httpx (each body encoded as it is
    sent, each answer's JSON parsed), nothing else. Answers that failed (--failure-share) are sent again."""
    semaphore = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        async def one(request: dict[str, object]) -> int:
            while True:
                async with semaphore:
                    response = await client.post("/chat/completions", json=request)
                if response.status_code == 200:
                    answer = response.json()["choices"][0]["message"]["content"]
                    return len(json.loads(answer)["clauses"])
                await asyncio.sleep(0.05)

        answered = await asyncio.gather(*(one(r) for r in requests))
    return sum(answered)


def chat_requests(home: Home) -> list[dict[str, object]]:
    """What the audit sends for each contract (model, messages, temperature, structured output)."""
    schema = {"type": "json_schema", "json_schema": {"name": "ExtractionOutput",
                                                     "schema": strict_json_schema(ExtractionOutput), "strict": True}}
    corpus = load_corpus(home)
    return [{"model": "bench", "temperature": 0.0, "max_tokens": 8192, "response_format": schema,
             "messages": [m.model_dump() for m in extraction_messages(c.text, CLAUSE_TYPES)]}
            for c in sorted(corpus.contracts, key=lambda c: c.contract_id)]


def summary(label: str, rounds: list[Round], ideal: float) -> tuple[float, float]:
    rates = [r.rate for r in rounds]
    best, median = max(rates), statistics.median(rates)
    print(f"{label:<12} best {best:6.0f} calls/s ({best / ideal:.2f} of ideal)   "
          f"median {median:6.0f} calls/s ({median / ideal:.2f} of ideal)   "
          f"rounds: {', '.join(f'{r:.0f}' for r in rates)}")
    return best, median


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuad", type=Path, default=DEFAULT_CUAD, help="a CUAD v1 folder (master_clauses.csv)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--failure-share", type=float, default=0.0)
    parser.add_argument("--keep", type=Path, help="keep the benchmark's home here (default: a temporary folder)")
    args = parser.parse_args()
    if not (args.cuad / "master_clauses.csv").exists():
        print(f"CUAD v1 not found at {args.cuad} (pass --cuad or set LHL_CUAD_DIR)", file=sys.stderr)
        return 2
    ideal = args.concurrency / args.latency
    work = Path(tempfile.mkdtemp(prefix="lhl-audit-bench-"))
    home = args.keep or work / "home"
    log = work / "audit-stderr.log"
    server, url = start(args.latency, args.failure_share, seed=1)
    try:
        lhl(home, "ingest", "cuad", str(args.cuad))
        params = {"concurrency": args.concurrency, "context_window": 1_048_576, "max_retries": 10,
                  "backoff_base_s": 0.05, "backoff_max_s": 1.0, "breaker_threshold": 10_000}
        lhl(home, "models", "add", "bench", "--provider", "openai", "--model-id", "bench", "--base-url", url,
            "--params", json.dumps(params), "--input-price", "1.75", "--cached-input-price", "0.175",
            "--output-price", "14")
        bodies = chat_requests(Home.resolve(home))
        stats(url, reset=True)
        audits: list[Round] = []
        bares: list[Round] = []
        print(f"{len(bodies)} contracts, concurrency {args.concurrency}, latency {args.latency * 1000:.0f} ms, "
              f"ideal {ideal:.0f} calls/s" + (f", {args.failure_share:.0%} of answers 429/500"
                                              if args.failure_share else ""))
        for number in range(1, args.rounds + 1):
            instances = asyncio.run(bare_client(url, bodies, args.concurrency))
            bare = window(url)
            bares.append(bare)
            wall = lhl(home, "audit", "--models", "bench", "--runs", str(number), log=log)
            audit = window(url)
            audit.wall_s = wall
            audits.append(audit)
            recorded, segments, verdicts = _recorded(Home.resolve(home), number)
            print(f"round {number}: bare {bare.rate:4.0f} calls/s ({instances:,} instances parsed) | lhl audit "
                  f"{audit.rate:4.0f} calls/s over {audit.window_s:.2f}s of calls, {wall:.1f}s in all "
                  f"(Dagster runs, verdicts, SQL models); instances recorded {recorded:,}/{len(bodies) * 41:,} "
                  f"in {segments} segments, {verdicts:,} verdicts", flush=True)
        print()
        bare_best, bare_median = summary("bare httpx", bares, ideal)
        audit_best, audit_median = summary("lhl audit", audits, ideal)
        print(f"{'lhl audit / bare':<12} best {audit_best / bare_best:.2f}   median {audit_median / bare_median:.2f}"
              f"   (per round: {', '.join(f'{a.rate / b.rate:.2f}' for a, b in zip(audits, bares, strict=True))})")
        tail = [ln for ln in log.read_text().splitlines() if "extraction" in ln][-1:]
        if tail:
            print(f"last progress line of the audit: {tail[0].strip()}")
    finally:
        server.kill()
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def _recorded(home: Home, run: int) -> tuple[int, int, int]:
    """Instances recorded by the audit's run, the segments they were committed in, and the judge's verdicts."""
    from lhl_platform.clause.extraction.engine import extraction_stream
    from lhl_platform.clause.judging import verdict_stream
    from lhl_platform.events.integrity import read_manifest

    stream = extraction_stream("bench", run)
    instances = sum(e.type == ExtractionEvent.RECORDED for e in home.events.read(stream))
    verdicts = sum(e.type == VerdictEvent.RECORDED for e in home.events.read(verdict_stream("bench", run)))
    return instances, len(read_manifest(home.events.root / stream)), verdicts


if __name__ == "__main__":
    sys.exit(main())
