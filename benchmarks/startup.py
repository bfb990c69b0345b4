"""Benchmark: start-up. What a command costs before it does anything, against the interpreter's own start-up.

In one run, interleaved round by round so that the machine's load hits all three alike, the wall time of:

- `python -c "import argparse"`: the floor (the interpreter and the parser library);
- `lhl --help`: the command tree built (issue #27 goal: at most 0.25 s on a quiet 2-core machine);
- `lhl report --format json` on a small home: the offline demo's (issue #27 goal: at most 0.6 s).

It prints the medians, the best times and the ratios to the floor (the ratios are what carries over to another
machine or a loaded one), with the machine's load average before and after.

    python benchmarks/startup.py [--rounds 7] [--home DIR]

Without `--home` it makes a small home with `lhl demo` in a temporary folder first (about a minute).
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

GOALS = {"lhl --help": 0.25, "lhl report --format json": 0.6}  # seconds, quiet 2-core machine (issue #27)


def lhl() -> list[str]:
    """The installed `lhl` console script beside this interpreter, else the module."""
    script = Path(sys.executable).with_name("lhl")
    return [str(script)] if script.exists() else [sys.executable, "-m", "orchestration.cli"]


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def prepared_home(folder: Path) -> Path:
    home = folder / "home"
    print(f"making a small home with `lhl demo` in {home} ...", flush=True)
    subprocess.run([*lhl(), "--home", str(home), "demo"], check=True, stdout=subprocess.DEVNULL)
    return home


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--home", type=Path, help="an audited home to report on (default: `lhl demo` in a temp dir)")
    args = parser.parse_args()
    folder = None if args.home else Path(tempfile.mkdtemp(prefix="lhl-startup-"))
    try:
        home = args.home or prepared_home(folder)  # type: ignore[arg-type]
        commands = {
            'python -c "import argparse"': [sys.executable, "-c", "import argparse"],
            "lhl --help": [*lhl(), "--help"],
            "lhl report --format json": [*lhl(), "--home", str(home), "report", "--format", "json"],
        }
        for argv in commands.values():  # warm the page cache (and the home's warehouse) first
            timed(argv)
        load_before = os.getloadavg()
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, argv in commands.items():
                times[name].append(timed(argv))
        load_after = os.getloadavg()
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    floor = statistics.median(times['python -c "import argparse"'])
    print(f"{os.cpu_count()} cores; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; "
          f"{args.rounds} rounds")
    print(f"{'command':<28} {'median':>8} {'best':>8} {'ratio':>7} {'goal (quiet)':>13}")
    for name, values in times.items():
        median = statistics.median(values)
        goal = f"{GOALS[name]:.2f} s" if name in GOALS else ""
        print(f"{name:<28} {median:>7.3f}s {min(values):>7.3f}s {median / floor:>6.1f}x {goal:>13}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
