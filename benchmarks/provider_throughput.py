"""Benchmark: the OpenAI provider (real SDK) against a loopback OpenAI-compatible fake with 50 ms latency.

2,000 extraction calls at concurrency 32 should reach at least 85% of the ideal rate (32 / 0.05 s =
640 calls/s). Then the same with 20% of responses failing (429 with Retry-After, or 500): every call
must still succeed, so no instance is lost. Prints both figures.

    python benchmarks/provider_throughput.py [--calls 2000] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_openai_server import start  # noqa: E402

from lhl_platform.domain.models import ModelSpec  # noqa: E402
from lhl_platform.domain.taxonomy import CLAUSE_TYPES  # noqa: E402
from lhl_platform.extraction.prompts import extraction_messages  # noqa: E402
from lhl_platform.factory import build_model  # noqa: E402
from lhl_platform.providers.base import ExtractTask, ModelRequest, close_model  # noqa: E402

LATENCY = 0.05


async def _burst(base_url: str, calls: int, concurrency: int) -> tuple[float, int, int]:
    spec = ModelSpec(name="bench", provider="openai", model_id="bench", base_url=base_url,
                     params={"concurrency": concurrency, "max_retries": 10, "backoff_base_s": 0.05,
                             "backoff_max_s": 1.0, "breaker_threshold": 10_000})
    model = build_model(spec)
    text = "SERVICES AGREEMENT\nThis Agreement is governed by the laws of Ohio."
    requests = [ModelRequest(provider="openai", model_id="bench", prompt_version="extract-v1", run=1,
                             messages=extraction_messages(f"{text} #{i}", CLAUSE_TYPES),
                             task=ExtractTask(contract_id=f"c{i}", contract_text=text, clause_types=CLAUSE_TYPES))
                for i in range(calls)]
    started = time.perf_counter()
    responses = await asyncio.gather(*(model.complete(r) for r in requests))
    elapsed = time.perf_counter() - started
    await close_model(model)
    ok = [r for r in responses if r.content is not None]
    instances = sum(len(r.content["clauses"]) for r in ok if r.content)
    return elapsed, len(ok), instances


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    os.environ.pop("OPENAI_API_KEY", None)
    ideal = args.concurrency / LATENCY
    for label, failures in (("clean", 0.0), ("20% 429/500", 0.2)):
        server, url = start(LATENCY, failures, seed=1)
        try:
            elapsed, ok, instances = asyncio.run(_burst(url, args.calls, args.concurrency))
        finally:
            server.kill()
        rate = args.calls / elapsed
        print(f"{label:<12} {args.calls} calls in {elapsed:.2f}s = {rate:.0f} calls/s = {rate / ideal:.0%} of ideal "
              f"({ideal:.0f}/s); succeeded {ok}/{args.calls}; instances {instances:,}/{args.calls * 41:,} "
              f"({'none lost' if instances == args.calls * 41 else 'LOST ' + str(args.calls * 41 - instances)})")


if __name__ == "__main__":
    main()
