"""The clause report's statistics as the report holds them: which rates get intervals, the composite schemes, and
the typed sections the resampling fills (`clause/report/resampling.py`, which imports numpy; this module does not,
so a report served from the figure cache loads none of it)."""

from __future__ import annotations

import duckdb
from pydantic import BaseModel, Field

from lhl_platform.clause.report.marts import (
    ClauseTypeMeanRow,
    MissingByContractRow,
    MissingSummaryRow,
    ProvenanceRow,
    RankStabilityRow,
    RateIntervalRow,
    RunSpreadRow,
)
from lhl_platform.report.marts import rows_of
from lhl_platform.stats.bootstrap import LEVEL

# Count columns of `contract_counts`, in this order along the last axis of every count array.
COUNTS = ("tp", "fp", "fn", "tn", "supported", "contradicted", "n_extra_condition", "n_missing_condition", "n_scope",
          "judged", "judged_fp", "judged_fn")

# Each rate as (numerator counts, denominator counts); docs/method.md, section 5. The content rates take the counts
# of the cells the scope's judge labelled (`judged` TPs, `judged_fp`, `judged_fn`), as the SQL macros do.
RATE_PARTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "far": (("fp",), ("fp", "tn")),
    "frr": (("fn",), ("fn", "tp")),
    "acc": (("tp", "tn"), ("tp", "fp", "fn", "tn")),
    "hal_tp": (("contradicted",), ("judged",)),
    "hal_gen": (("contradicted", "judged_fp"), ("judged", "judged_fp")),
    "jeq": (("supported",), ("judged", "judged_fn")),
    "p_scope": (("n_scope",), ("contradicted",)),
    "p_missing": (("n_missing_condition",), ("contradicted",)),
    "p_extra": (("n_extra_condition",), ("contradicted",)),
}
INTERVAL_METRICS = tuple(RATE_PARTS)
COMPARED_METRICS = ("hal_tp", "hal_gen", "far", "frr", "acc", "jeq", "rdi")
# The counts of the judge's cells only, which the content rates take (the rest are counted on every cell).
CONTENT_COUNTS = ("supported", "contradicted", "n_extra_condition", "n_missing_condition", "n_scope", "judged",
                  "judged_fp", "judged_fn")

# Composite schemes (docs/method.md, section 9): weights in the order FAR, FRR, Acc, HalGen, JEq.
COMPOSITE_METRICS = ("far", "frr", "acc", "hal_gen", "jeq")
SCHEMES: dict[str, tuple[int, int, int, int, int]] = {
    "equal": (1, 1, 1, 1, 1), "fp_heavy": (2, 1, 1, 2, 1), "recall_heavy": (1, 2, 1, 1, 2),
    "halluc_only": (0, 0, 0, 1, 0), "detection_only": (1, 1, 1, 0, 0),
}
SCHEME_LABELS = {"equal": "equal weights", "fp_heavy": "FP-heavy", "recall_heavy": "recall-heavy",
                 "halluc_only": "hallucination only", "detection_only": "detection only"}


def scheme_label(scheme: str) -> str:
    """A scheme's name as a reader sees it in the text, Markdown and HTML tables."""
    return SCHEME_LABELS.get(scheme) or scheme.replace("_", " ")


# --- what the report adds ------------------------------------------------------------------------------------


class BootstrapSettings(BaseModel):
    unit: str = Field(description="resampling unit of the rate and RDI intervals: instance or contract")
    resamples: int
    seed: int
    level: float = LEVEL


class Statistics(BaseModel):
    """Uncertainty and spread beyond the marts (docs/method.md, sections 6 to 9)."""

    bootstrap: BootstrapSettings
    rate_intervals: list[RateIntervalRow]
    run_spread: list[RunSpreadRow]
    missing_summary: list[MissingSummaryRow]
    missing_by_contract: list[MissingByContractRow]
    clause_type_means: list[ClauseTypeMeanRow]
    rank_stability: list[RankStabilityRow]


class Provenance(BaseModel):
    """What produced the figures: the code version and, per model and run, the extractor, judge or import."""

    code_version: str
    sources: list[ProvenanceRow]


def provenance_from(con: duckdb.DuckDBPyConnection) -> Provenance:
    from lhl_platform import __version__

    return Provenance(code_version=__version__, sources=rows_of(con, "provenance", ProvenanceRow))
