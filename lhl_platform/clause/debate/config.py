"""Debate calibration as data: what the Skeptic presses on and how strict the gates are, per category.

A `DebateConfig` is plain configuration. `calibrate` derives one from a measured audit profile
(per-category FAR, FRR, HalTP and RDI of the backbone's baseline); `GENERIC` is the uncalibrated
configuration used as the ablation. Every debate outcome carries the config and its hash, so two
debates run under different configurations are never confused.

Calibration rules (all thresholds are the named constants below):
- Presence emphasis of a category follows its FAR relative to the mean FAR over the measured
  categories: at least `HIGH_RATIO` times the mean -> high, at most `LOW_RATIO` times -> low, else
  normal. A high FAR means fabricated detections: the Skeptic presses harder on whether a claimed
  clause exists at all.
- Omission emphasis (does the contract hold a clause the extraction missed?) follows FRR the same way.
- Content emphasis (the category's typed challenges: verbatim values, modal verbs, stated dates,
  document-only facts) follows HalTP the same way.
- Direction follows the category's RDI (or the overall RDI when the category has none): above
  `+RDI_DEADBAND` the model adds conditions, so the extra-condition challenge is emphasised; below
  `-RDI_DEADBAND` it drops them, so the missing-condition (carve-out) challenge is emphasised.
- Gates: where FAR exceeds FRR (fabrication is the larger risk) the addition gate needs a confident
  Verifier (`STRICT_CONFIDENCE`) and a removal is blocked only by a confident Verifier, so fabricated
  detections are easier to remove; where FRR exceeds FAR the addition gate is lenient and any
  presence confirmation (`LENIENT_BLOCK_CONFIDENCE`) blocks a removal. The addition gate always needs
  both Verifier confirmation and debate consensus.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

from pydantic import Field, model_validator

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.domain.taxonomy import Category

HIGH_RATIO = 1.15
LOW_RATIO = 0.85
RDI_DEADBAND = 0.05
NORMAL_CONFIDENCE = 0.5
STRICT_CONFIDENCE = 0.75
LENIENT_BLOCK_CONFIDENCE = 0.34


class Emphasis(StrEnum):
    """How hard a challenge is pressed. A low-emphasis challenge is not asked (except presence, which
    every debate asks; its emphasis sets how much evidence the Skeptic demands)."""

    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"


class Direction(StrEnum):
    """Which condition errors the Skeptic hunts first, from the sign of the measured RDI."""

    EXTRA = "extra_condition"
    MISSING = "missing_condition"
    BALANCED = "balanced"


class GatePolicy(_Frozen):
    """The asymmetric structural gates for one category.

    Addition (baseline absent -> present) passes only with the confirmations it requires; a Verifier
    confirmation counts when the Verifier reports the clause present, fitting the definition, with a
    verbatim quote and at least `addition_min_confidence`. Deletion (baseline present -> absent) is
    blocked when the Verifier confirms presence with at least `deletion_block_confidence`, and, when
    `deletion_requires_consensus`, also unless the debate agreed the clause is absent.
    """

    addition_requires_verifier: bool = True
    addition_requires_consensus: bool = True
    addition_min_confidence: float = Field(default=NORMAL_CONFIDENCE, ge=0, le=1)
    deletion_blocked_by_verifier: bool = True
    deletion_block_confidence: float = Field(default=NORMAL_CONFIDENCE, ge=0, le=1)
    deletion_requires_consensus: bool = False


class CategoryCalibration(_Frozen):
    presence: Emphasis = Emphasis.NORMAL
    omission: Emphasis = Emphasis.NORMAL
    content: Emphasis = Emphasis.NORMAL
    direction: Direction = Direction.BALANCED
    gate: GatePolicy = Field(default_factory=GatePolicy)


class CategoryMeasure(_Frozen):
    """One category of a measured Experiment 1 profile; rates are fractions, None where undefined."""

    far: float | None = Field(default=None, ge=0, le=1)
    frr: float | None = Field(default=None, ge=0, le=1)
    hal_tp: float | None = Field(default=None, ge=0, le=1)
    rdi: float | None = Field(default=None, ge=-1, le=1)


class MeasuredProfile(_Frozen):
    """The backbone's measured typed profile that a calibrated debate is derived from."""

    model: str = ""
    categories: dict[Category, CategoryMeasure]
    rdi: float | None = Field(default=None, ge=-1, le=1)


class DebateConfig(_Frozen):
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:+-]{0,99}$")
    max_rounds: int = Field(default=2, ge=1, le=2)
    categories: dict[Category, CategoryCalibration] = Field(
        default_factory=lambda: {c: CategoryCalibration() for c in Category})
    calibrated_from: MeasuredProfile | None = None

    @model_validator(mode="after")
    def _every_category(self) -> DebateConfig:
        missing = [c.value for c in Category if c not in self.categories]
        if missing:
            raise ValueError(f"categories must configure every category; missing: {', '.join(missing)}")
        return self

    def for_category(self, category: Category) -> CategoryCalibration:
        return self.categories[category]

    @property
    def hash(self) -> str:
        """A short content hash of the whole configuration (16 hex digits)."""
        text = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# The ablation: every challenge at normal emphasis, no direction, and symmetric gates (a removal, like
# an addition, needs debate consensus and is blocked by a Verifier confirmation at the same confidence).
GENERIC = DebateConfig(name="generic", categories={
    c: CategoryCalibration(gate=GatePolicy(deletion_requires_consensus=True)) for c in Category})


def _level(value: float | None, mean: float | None) -> Emphasis:
    if value is None or mean is None or mean <= 0:
        return Emphasis.NORMAL
    ratio = value / mean
    if ratio >= HIGH_RATIO:
        return Emphasis.HIGH
    if ratio <= LOW_RATIO:
        return Emphasis.LOW
    return Emphasis.NORMAL


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _direction(rdi: float | None) -> Direction:
    if rdi is None:
        return Direction.BALANCED
    if rdi > RDI_DEADBAND:
        return Direction.EXTRA
    if rdi < -RDI_DEADBAND:
        return Direction.MISSING
    return Direction.BALANCED


def _gate(far: float | None, frr: float | None) -> GatePolicy:
    if far is None or frr is None or far == frr:
        return GatePolicy()
    if far > frr:
        return GatePolicy(addition_min_confidence=STRICT_CONFIDENCE, deletion_block_confidence=STRICT_CONFIDENCE)
    return GatePolicy(addition_min_confidence=NORMAL_CONFIDENCE, deletion_block_confidence=LENIENT_BLOCK_CONFIDENCE)


def calibrate(profile: MeasuredProfile, *, name: str | None = None, max_rounds: int = 2) -> DebateConfig:
    """Derive a DebateConfig from a measured profile by the rules in this module's docstring."""
    measures = {c: profile.categories.get(c, CategoryMeasure()) for c in Category}
    mean_far = _mean([m.far for m in measures.values()])
    mean_frr = _mean([m.frr for m in measures.values()])
    mean_hal = _mean([m.hal_tp for m in measures.values()])
    categories = {
        c: CategoryCalibration(
            presence=_level(m.far, mean_far), omission=_level(m.frr, mean_frr), content=_level(m.hal_tp, mean_hal),
            direction=_direction(m.rdi if m.rdi is not None else profile.rdi), gate=_gate(m.far, m.frr))
        for c, m in measures.items()}
    label = name or (f"calibrated:{profile.model}" if profile.model else "calibrated")
    return DebateConfig(name=label, max_rounds=max_rounds, categories=categories, calibrated_from=profile)


def profile_from_rows(rows: Iterable[Mapping[str, Any]], *, model: str = "",
                      rdi: float | None = None) -> MeasuredProfile:
    """Build a MeasuredProfile from typed-profile rows (mappings with `category`, `far`, `frr`, `hal_tp`
    and `rdi`, like the report's per-category rows); rows of other models must be filtered out first."""
    categories = {Category(str(row["category"])): CategoryMeasure.model_validate(
        {key: row.get(key) for key in ("far", "frr", "hal_tp", "rdi")}) for row in rows}
    return MeasuredProfile(model=model, categories=categories, rdi=rdi)
