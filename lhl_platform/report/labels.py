"""What a reader sees of a mart column in the Markdown and HTML reports: its label, how its value is written, and
which columns fold into a table's detail. One table for every suite; the JSON and CSV keep the column names.

Rates (fractions in the marts, the JSON and the CSV) are written as percent, `11.6%`; an interval is one column,
`[9.4%, 13.9%]`, built from its `_ci_low`/`_ci_high` (or `_low`/`_high`) pair; an interval resting on fewer than
`FEW_CASES` cases carries `FEW_MARK` and a line under its table says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

FEW_CASES = 20  # below this many cases an interval describes the sample more than the system
FEW_MARK = "†"

# Mart column -> the label a reader sees. A column missing here is shown with spaces for underscores (`label`).
LABELS: dict[str, str] = {
    # identity and scope
    "model": "model", "judge": "judge", "run": "run", "runs": "runs", "category": "category", "bucket": "distance",
    "contracts": "contracts", "contract_id": "contract", "item_set": "item set", "name": "name", "kind": "kind",
    "origin": "origin", "seed": "seed", "source": "source", "description": "description", "about": "what it is",
    "provenance": "provenance", "reason": "reason", "rank": "rank", "complete": "complete", "ranked": "ranked",
    "coverage": "coverage", "judge_validated": "judge validated", "validated": "validated", "passed": "passed",
    "validated_at": "validated at", "suite_version": "suite version", "suite_digest": "suite digest",
    "judge_version": "judge version", "backbone": "backbone", "subset": "subset", "config": "configuration",
    # counts
    "gold": "gold", "tp": "TP", "fp": "FP", "fn": "FN", "hits": "found", "cells": "cells", "judged": "judged",
    "variants": "variants", "base_items": "base queries", "items": "items", "cases": "cases",
    "unanswered": "unanswered", "calls": "calls", "failed_calls": "failed calls", "missing_calls": "missing calls",
    "calls_asked": "calls asked", "calls_answered": "calls answered", "runs_asked": "runs asked",
    "runs_covered": "runs covered", "missing_categories": "categories with a missing call",
    "unanswered_categories": "categories never answered", "responses": "responses",
    "missing_responses": "missing responses", "failed_responses": "failed responses",
    "missing_judgments": "missing judgments", "dropped_identified": "identified elements dropped",
    "response_calls": "response calls", "judge_calls": "judge calls", "missing_elements": "missing elements",
    "gold_elements": "gold elements", "non_required_elements": "non-required elements", "domains": "domains",
    "jurisdictions": "jurisdictions", "self_built": "built by this platform", "gold_source": "gold from",
    "named": "named",
    "matched": "matched", "decisions": "decisions", "newest_run": "newest run", "baseline_runs": "earlier runs",
    "drifted": "drifted",
    # rates and scores
    "recall": "recall", "precision": "precision", "f1": "F1", "f2": "F2", "terms_only_recall": "term-only recall",
    "terms_only_precision": "term-only precision", "terms_only_f1": "term-only F1", "hedge_rate": "hedge rate",
    "f2_given_hedge": "F2 when hedging", "expl_acc": "explanation accuracy", "safety": "safety",
    "over_flag": "over-flag", "identification": "identification",
    "claimed_anything_missing": "claimed something missing", "additional_claims_count": "additional claims",
    "explanation": "explanation", "fabrication": "fabrication", "f2_mean_abs_diff": "F2 mean |difference|",
    "required_failed": "required checks failed", "identical": "identical pairs", "force_changed": "force changed",
    "right_mismatch": "right type", "force_kept": "force kept", "baseline_recall": "earlier runs' recall",
    "newest_recall": "newest run's recall", "delta_far": "FAR change", "delta_hal_gen": "HalGen change",
    "rdi_shift": "RDI change", "flip_rate": "flipped", "far": "FAR", "frr": "FRR", "acc": "Acc", "hal_tp": "HalTP",
    "hal_gen": "HalGen", "jeq": "JEq", "rdi": "RDI",
    # a judge on a held-out set
    "decided_share": "share decided", "accuracy_decided": "accuracy on decided", "as_expected": "as expected (all)",
    # cost and time
    "cost_usd": "cost (USD)", "cost_per_contract_usd": "cost per contract (USD)",
    "response_cost_usd": "response cost (USD)", "judge_cost_usd": "judge cost (USD)", "seconds": "seconds",
    "seconds_per_contract": "seconds per contract",
}

# Columns holding a share (0..1) written as percent; `pp` ones are differences of shares, in percentage points.
RATES = frozenset({
    "recall", "precision", "f1", "f2", "terms_only_recall", "terms_only_precision", "terms_only_f1", "hedge_rate",
    "f2_given_hedge", "expl_acc", "safety", "over_flag", "identification", "claimed_anything_missing",
    "explanation", "fabrication", "identical", "force_changed", "right_mismatch", "force_kept", "baseline_recall",
    "newest_recall", "flip_rate", "far", "frr", "acc", "hal_tp", "hal_gen", "jeq", "decided_share",
    "accuracy_decided", "as_expected", "additional_claims_count", *(f"held_out_{k}" for k in (
        "identification", "claimed_anything_missing", "over_flag", "additional_claims_count", "explanation",
        "fabrication"))})
POINTS = frozenset({"f2_mean_abs_diff", "held_out_f2_mean_abs_diff", "delta_far", "delta_hal_gen"})
SIGNED = frozenset({"rdi", "rdi_shift"})
MONEY = frozenset({"cost_usd", "cost_per_contract_usd", "response_cost_usd", "judge_cost_usd"})

# Columns a wide table folds into its detail table ("more columns", folded in HTML), so its first table fits the
# page: by section name, the same for every suite that has one; any past `MAX_COLUMNS` fold too.
DETAIL: dict[str, frozenset[str]] = {
    "judge_heldout": frozenset({"sha256", "unanswered", "as_expected"}),
    "leaderboard": frozenset({"judge", "runs", "variants", "base_items", "terms_only_recall", "terms_only_precision",
                              "terms_only_f1", "missing_categories", "cost_usd", "coverage", "cells", "judged",
                              "judge_validated", "f2_given_hedge"}),
    "coverage": frozenset({"runs_asked", "missing_categories", "unanswered_categories", "failed_responses",
                           "dropped_identified", "response_calls", "judge_calls", "response_cost_usd",
                           "judge_cost_usd"}),
    "usage": frozenset({"seconds", "seconds_per_contract"}),
}
FIRST = ("rank", "complete")  # a leaderboard's standing, right after the row's name
SPLIT_OVER = 8  # a table with more columns than this folds its section's DETAIL columns ...
MAX_COLUMNS = 11  # ... and any past this many

# The count an interval rests on, by the first of these columns a row has: gold findings, base queries, contracts.
INTERVAL_BASIS = ("gold", "base_items", "contracts")


# Where a section's column means something else than the same name elsewhere: a judge's validation reports how
# often the judge agrees with the labels on each field, not the rate a leaderboard reports under that name.
SECTION_LABELS: dict[str, dict[str, str]] = {
    "judge_validation": {
        "identification": "agrees on identification", "claimed_anything_missing": "agrees on claimed missing",
        "over_flag": "agrees on over-flag", "additional_claims_count": "agrees on additional claims",
        "explanation": "agrees on explanation", "fabrication": "agrees on fabrication",
        "required_failed": "required cases misjudged", "f2_mean_abs_diff": "F2 mean |difference|"},
}
_AGREEMENT = ("identification", "claimed_anything_missing", "over_flag", "additional_claims_count", "explanation",
              "fabrication")
SECTION_LABELS["judge_validation"] |= {
    **{f"held_out_{k}": f"held-out: {SECTION_LABELS['judge_validation'][k]}" for k in _AGREEMENT},
    **{k: f"shipped set: {SECTION_LABELS['judge_validation'][k]}" for k in (*_AGREEMENT, "f2_mean_abs_diff")},
    "held_out_set": "held-out set", "held_out_cases": "held-out cases",
    "held_out_f2_mean_abs_diff": "held-out: F2 mean |difference|", "held_out_failed": "held-out: failed on",
    "in_sample_passed": "passed the shipped set (in sample)", "gate": "validated on"}
# A null that means "none" rather than "not measured", by section and column.
NONE_MEANS_NONE: dict[str, frozenset[str]] = {"judge_validation": frozenset({"required_failed"})}


def label(column: str, section: str | None = None) -> str:
    """The column's label: the section's own, else the table's, else its name with spaces (never a snake_case
    identifier)."""
    own = SECTION_LABELS.get(section or "", {}).get(column)
    return own or LABELS.get(column) or column.replace("_", " ")


def pct(value: float | None, digits: int = 1, none: str = "–") -> str:
    return none if value is None else f"{100 * value:.{digits}f}%"


def points(value: float | None, none: str = "–") -> str:
    return none if value is None else f"{100 * value:+.1f} pp"


def signed(value: float | None, none: str = "–") -> str:
    return none if value is None else f"{value:+.3f}"


def money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def value_text(column: str, value: Any, none: str = "–") -> str:
    """A mart value as the reader sees it in Markdown and HTML."""
    if column in MONEY:
        return money(value)
    if value is None:
        return none
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value)) or "none"
    if isinstance(value, float):
        if column in RATES:
            return pct(value)
        if column in POINTS:
            return points(value).lstrip("+") if "abs_diff" in column else points(value)
        if column in SIGNED:
            return signed(value)
        if column.startswith("seconds"):
            return f"{value:.3g} s"
        return f"{value:,.2f}"
    if isinstance(value, int) and column not in ("seed", "run", "newest_run", "rank") and abs(value) >= 10_000:
        return f"{value:,}"
    return str(value)


def point_text(shown: str, n: int | None) -> str:
    """An interval whose every resample gave one value: never printed as `[x, x]`, which reads as certainty. On
    fewer than FEW_CASES cases there are too few to draw one; on more, the value held in every resample."""
    if n is not None and n < FEW_CASES:
        return f"too few (n={n})"
    return f"{shown} in every resample"


def interval_text(column: str, low: Any, high: Any, none: str = "–", n: int | None = None) -> str:
    """`[low, high]`; a point interval (low = high) as `point_text` says, `n` the cases it rests on."""
    if low is None or high is None:
        return none
    if low == high:
        return point_text(value_text(column, low), n)
    return f"[{value_text(column, low)}, {value_text(column, high)}]"


@dataclass(frozen=True)
class Column:
    """One column as shown: a mart column, or an interval made of a low and a high one."""

    key: str  # the mart column (for an interval: the figure it belongs to)
    title: str
    low: str | None = None
    high: str | None = None

    @property
    def interval(self) -> bool:
        return self.low is not None

    def text(self, row: dict[str, Any], none: str = "–") -> str:
        if self.low is None or self.high is None:
            return value_text(self.key, row.get(self.key), none)
        few = few_cases(row)
        shown = interval_text(self.key, row.get(self.low), row.get(self.high), none, few[1] if few else None)
        return shown if few is None or shown == none or shown.startswith("too few") else f"{shown} {FEW_MARK}"

    def value(self, row: dict[str, Any]) -> Any:
        return row.get(self.key) if self.low is None else row.get(self.low)


def few_cases(row: dict[str, Any]) -> tuple[str, int] | None:
    """(basis column, count) when the row's intervals rest on fewer than FEW_CASES cases, else None."""
    for basis in INTERVAL_BASIS:
        count = row.get(basis)
        if isinstance(count, int) and not isinstance(count, bool):
            return (basis, count) if count < FEW_CASES else None
    return None


def _interval_base(field: str, fields: Sequence[str]) -> tuple[str, str, str] | None:
    for low_suffix, high_suffix in (("_ci_low", "_ci_high"), ("_low", "_high")):
        if field.endswith(low_suffix):
            stem = field[: -len(low_suffix)]
            high = stem + high_suffix
            if high in fields:
                figure = stem if stem in fields else f"{stem}_recall" if f"{stem}_recall" in fields else stem
                return figure, field, high
    return None


def columns(fields: Sequence[str], section: str | None = None) -> list[Column]:
    """The columns shown for a row's fields (labelled for `section`): each interval pair as one column right after
    its figure."""
    highs = set()
    pairs: dict[str, tuple[str, str, str]] = {}
    for f in fields:
        found = _interval_base(f, fields)
        if found is not None:
            pairs[found[0]] = found
            highs |= {found[1], found[2]}
    out: list[Column] = []
    for f in fields:
        if f in highs:
            continue
        out.append(Column(f, label(f, section)))
        if f in pairs:
            figure, low, high = pairs.pop(f)
            out.append(Column(figure, f"{label(figure)} 95% CI", low, high))
    for figure, low, high in pairs.values():  # an interval whose figure is not a column of its own
        out.append(Column(figure, f"{label(figure)} 95% CI", low, high))
    return out


def split_columns(cols: Sequence[Column], section: str, keep: int = 1) -> tuple[list[Column], list[Column]]:
    """A table's columns as (main, detail): the first `keep` (the row's identity) in both, a leaderboard's
    standing next, the section's `DETAIL` ones and any past `MAX_COLUMNS` in the detail only."""
    ident = list(cols[:keep])
    rest = list(cols[keep:])
    if section == "leaderboard":
        rest = [c for f in FIRST for c in rest if c.key == f and not c.interval] + [
            c for c in rest if c.interval or c.key not in FIRST]
    if len(cols) <= SPLIT_OVER:
        return ident + rest, []
    folded = DETAIL.get(section, frozenset())
    main = [c for c in rest if c.key not in folded]
    detail = [c for c in rest if c.key in folded]
    room = MAX_COLUMNS - keep
    main, detail = main[:room], main[room:] + detail
    return ident + main, (ident + detail) if detail else []


def identity_columns(fields: Sequence[str]) -> int:
    """How many leading columns name a row (model and category, or model alone, ...)."""
    names = ("model", "category", "item_set", "bucket", "contract_id", "run", "backbone")
    count = 0
    for f in fields:
        if f not in names:
            break
        count += 1
    return max(count, 1)  # a judge names a row only as its first column (a judge's validation)


def few_cases_note(rows: Sequence[dict[str, Any]], cols: Sequence[Column]) -> str | None:
    """The line under a table whose intervals rest on fewer than FEW_CASES cases."""
    if not any(c.interval for c in cols):
        return None
    few = [f for r in rows if (f := few_cases(r)) is not None]
    if not few:
        return None
    basis = few[0][0]
    what = {"gold": "gold findings", "base_items": "base queries", "contracts": "contracts"}.get(basis, label(basis))
    counts = sorted({n for _, n in few})
    shown = ", ".join(map(str, counts[:6])) + (", ..." if len(counts) > 6 else "")
    return (f"{FEW_MARK} the interval rests on fewer than {FEW_CASES} {what} ({shown}): with so few it describes "
            "this sample more than the system; read it as a rough range.")
