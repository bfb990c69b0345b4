"""The one reading of the batch switch a stage falls back to when its run config leaves `batch` open."""

from __future__ import annotations

import os

BATCH_ENV = "LHL_AUDIT_BATCH"


def batch_requested() -> bool:
    """Whether partitions should use the providers' batch APIs when their run config does not say:
    `LHL_AUDIT_BATCH=1` (what `lhl audit --batch` sets for the runs it executes)."""
    return os.environ.get(BATCH_ENV, "").strip().lower() in ("1", "true", "yes")
