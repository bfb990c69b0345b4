"""Statistics SQL does badly (bootstrap intervals), and the one rule for undefined figures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def nan_to_null(value: Any) -> Any:
    """The one NaN-to-null rule: a figure DuckDB or numpy leaves undefined (NaN) is null, never a number."""
    return None if isinstance(value, float) and value != value else value


def nan_free(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row with every undefined figure as null."""
    return {k: nan_to_null(v) for k, v in row.items()}
