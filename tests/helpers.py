"""Helpers the tests share: outcome rows in the `lhl import outcomes` layout."""

from __future__ import annotations

import csv
from pathlib import Path


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
