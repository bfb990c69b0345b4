"""Helpers the tests share: outcome rows in the `lhl import outcomes` layout; reports without their clock readings."""

from __future__ import annotations

import csv
import os
import subprocess
from pathlib import Path

import pytest


def write_outcomes(path: Path, rows: list[dict[str, object]]) -> Path:
    """Write rows in the `lhl import outcomes` CSV layout."""
    columns = ["model", "run", "contract_id", "clause_type", "gt_present", "predicted_present", "verdict",
               "mismatch_type"]
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({c: row.get(c, "") for c in columns})
    return path


def outcome(model: str, run: int, contract: str, clause: str, kind: str, verdict: str = "",
            mismatch: str = "") -> dict[str, object]:
    gt, pred = {"TP": (1, 1), "FP": (0, 1), "FN": (1, 0), "TN": (0, 0)}[kind]
    return {"model": model, "run": run, "contract_id": contract, "clause_type": clause, "gt_present": gt,
            "predicted_present": pred, "verdict": verdict, "mismatch_type": mismatch}


def read_only_mount(path: Path) -> None:
    """Make `path` read-only with a bind mount (a test skips, saying why, where that cannot be done)."""
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root")
    for command in (["mount", "--bind", str(path), str(path)], ["mount", "-o", "remount,ro,bind", str(path)]):
        done = subprocess.run(command, capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"cannot make {path} read-only here: {done.stderr.decode().strip()}")


# Clock readings a report carries: two homes audited apart agree on every figure, never on these (`at` is an audit
# round's date in the trend).
CLOCK_READINGS = ("seconds", "seconds_per_contract", "validated_at", "at")


def clock_readings_apart(report: dict) -> tuple[dict, list[float | str | None]]:
    """The report without its clock readings, and those readings."""
    found: list[float | str | None] = []

    def strip(value):
        if isinstance(value, dict):
            found.extend(value[k] for k in CLOCK_READINGS if k in value)
            return {k: strip(v) for k, v in value.items() if k not in CLOCK_READINGS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(report), found
