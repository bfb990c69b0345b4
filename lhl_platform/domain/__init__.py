"""Typed domain: clause taxonomy, instances, extractions, verdicts, model specs, events."""

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
