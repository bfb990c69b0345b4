"""Benchmark: start-up. What a command costs before it does anything, against the interpreter's own start-up.

In one run, interleaved round by round so that the machine's load hits all three alike, the wall time of:

- `python -c "import argparse"`: the floor (the interpreter and the parser library);
- `lhl --help`: the command tree built (issue #27 goal: at most 0.25 s on a quiet 2-core machine);
- `lhl report --format json` on a small home: the offline demo's (issue #27 goal: at most 0.6 s), its figures
  served from the home's figure cache (`lhl_platform/report/figure_cache.py`), as every report after the
  first of a build;
- the same report with figures computed: another `--seed` each round, so no round finds its figures cached.

It prints the medians, the best times and the ratios to the floor (the ratios are what carries over to another
machine or a loaded one), the median CPU time (user + system, which a busy machine inflates less than the wall
time), with the machine's load average before and after.

Every command runs with a byte-code cache (in a temporary folder, `PYTHONPYCACHEPREFIX`), as an installed `lhl`
has one: with `PYTHONDONTWRITEBYTECODE` set, each start would compile the platform's sources again.

    python benchmarks/startup.py [--rounds 7] [--home DIR]

Without `--home` it makes a small home with `lhl demo` in a temporary folder first (about a minute).
"""

from __future__ import annotations

import argparse
import os
import resource
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


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """The wall time and the CPU time (user + system) of one run of `argv`."""
    cpu, start = _children_cpu(), time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start, _children_cpu() - cpu


def cached_env(folder: Path) -> dict[str, str]:
    """This environment with a byte-code cache of its own (what an installed `lhl` starts with)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    return env


def prepared_home(folder: Path, env: dict[str, str]) -> Path:
    home = folder / "home"
    print(f"making a small home with `lhl demo` in {home} ...", flush=True)
    subprocess.run([*lhl(), "--home", str(home), "demo"], check=True, stdout=subprocess.DEVNULL, env=env)
    return home


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--home", type=Path, help="an audited home to report on (default: `lhl demo` in a temp dir)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="lhl-startup-"))
    env = cached_env(folder)
    try:
        home = args.home or prepared_home(folder, env)
        report = [*lhl(), "--home", str(home), "report", "--format", "json"]
        commands = {
            'python -c "import argparse"': lambda n: [sys.executable, "-c", "import argparse"],
            "lhl --help": lambda n: [*lhl(), "--help"],
            "lhl report --format json": lambda n: report,
            "  figures computed": lambda n: [*report, "--seed", str(1000 + n)],
        }
        for argv in commands.values():  # fill the byte-code cache, the page cache, the home's warehouse first
            timed(argv(-1), env)
        load_before = os.getloadavg()
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for n in range(args.rounds):
            for name, argv in commands.items():
                wall, cpu = timed(argv(n), env)
                walls[name].append(wall)
                cpus[name].append(cpu)
        load_after = os.getloadavg()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    floor = statistics.median(walls['python -c "import argparse"'])
    cpu_floor = statistics.median(cpus['python -c "import argparse"'])
    print(f"{os.cpu_count()} cores; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; "
          f"{args.rounds} rounds")
    print(f"{'command':<28} {'median':>8} {'best':>8} {'ratio':>7} {'cpu':>8} {'ratio':>7} {'goal (quiet)':>13}")
    for name, values in walls.items():
        median, cpu = statistics.median(values), statistics.median(cpus[name])
        goal = f"{GOALS[name]:.2f} s" if name in GOALS else ""
        print(f"{name:<28} {median:>7.3f}s {min(values):>7.3f}s {median / floor:>6.1f}x {cpu:>7.3f}s "
              f"{cpu / cpu_floor if cpu_floor else float('nan'):>6.1f}x {goal:>13}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
