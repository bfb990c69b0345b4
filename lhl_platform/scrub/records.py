"""The plain records ContractScrub's event payloads hold (`scrub/events.py`): a build's configuration and what its
verifier kept, and a call's section-reference counts by distance. Light (pydantic only), so the warehouse, which
stages every registered payload class, imports no builder, verifier or scorer to read them; those modules use
them from here."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.scrub.categories import CategoryKey

VERIFIER_VERSION = "scrub-verify-v3"
LONG_DISTANCE = 10_000  # the paper's threshold (about 5-6 pages): recall drops most past it
# Characters of untouched text between two injected edits (about two lines of a page): a reviewer judges each edit
# in clean context, never one defect through another. The builder keeps edits this far apart; the verifier rejects
# the later of two that are closer.
MIN_GAP = 150


class BuildConfig(BaseModel):
    """Which contracts can host the defects, and how hard to try."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    min_chars: int = Field(default=20_000, ge=0, description="the paper used contracts of 10-15 pages")
    max_chars: int = Field(default=80_000, ge=1)
    min_sections: int = Field(default=12, ge=1)
    min_terms: int = Field(default=10, ge=1)
    min_resolved_references: int = Field(default=4, ge=0)
    min_parties: int = Field(default=2, ge=0)
    min_categories: int = Field(default=6, ge=1, le=8, description="error categories an item must hold")
    rounds: int = Field(default=4, ge=1)


class SkippedContract(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    contract_id: str
    reason: str


class ReasonCount(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    category: CategoryKey | None
    reason: str
    count: int = Field(ge=1)
    examples: tuple[str, ...]


class VerifierReport(BaseModel):
    """What a build kept and rejected, and the spread of its section-reference distances."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    verifier_version: str = VERIFIER_VERSION
    items: int = Field(ge=0)
    kept: dict[CategoryKey, int]
    rejected: tuple[ReasonCount, ...]
    section_reference_distances: dict[str, int]
    longest_section_reference: int | None
    references_past_long_distance: int = Field(ge=0, description=f"section references past {LONG_DISTANCE:,} "
                                                                   "characters")


class DistanceCount(_Frozen):
    """One answered call's section-reference gold with a distance in one bucket, and how many were found."""

    position: int = Field(ge=0, description="the bucket's place in `bucket_names()`")
    bucket: str
    gold: int = Field(ge=0)
    tp: int = Field(ge=0)
