"""Typed domain: clause taxonomy, instances, extractions, verdicts, model specs, events.

The names below are loaded on first use, so importing a light submodule (`lhl_platform.domain.redaction`, which
every command's start-up needs) does not build the pydantic models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lhl_platform.domain.models import (
        Contract,
        Extraction,
        InstanceOutcome,
        MismatchType,
        ModelSpec,
        OracleRow,
        Outcome,
        Subset,
        Verdict,
        VerdictLabel,
        outcome_of,
    )
    from lhl_platform.domain.taxonomy import CATEGORY_OF, CLAUSE_TYPES, Category, canonical_clause_type

__all__ = [
    "CATEGORY_OF", "CLAUSE_TYPES", "Category", "Contract", "Extraction", "InstanceOutcome",
    "MismatchType", "ModelSpec", "OracleRow", "Outcome", "Subset", "Verdict", "VerdictLabel",
    "canonical_clause_type", "outcome_of",
]
_TAXONOMY = {"CATEGORY_OF", "CLAUSE_TYPES", "Category", "canonical_clause_type"}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f"{__name__}.{'taxonomy' if name in _TAXONOMY else 'models'}")
    value = getattr(module, name)
    globals()[name] = value
    return value
