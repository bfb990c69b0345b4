"""Typed payloads of what a review records, and their event types (registered with the event log on import).

- `review.decision`: one reviewer's decision on one reviewable thing (its `ref`), read from a decisions sheet;
- `review.gold_version`: a new gold version of one item set: the version it was made from, the sheets
  (files) whose decisions it applies, who reviewed and how much;
- `review.scrub_item`: a ContractScrub item as it stands in a gold version (its text, a rejected edit undone,
  and its gold);
- `review.scrub_scored`: one answered ContractScrub call scored against a gold version's gold (the suite's
  `scrub.scored` holds version 1);
- `review.insufficiency_gold`: an InsufficiencyBench item as it stands in a gold version (kept or dropped, its
  missing elements with their `required` flags).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from lhl_platform.events.kinds import register_events
from lhl_platform.events.payloads import Payload  # the one payload base, the platform's and every suite's
from lhl_platform.insufficiency.items import MissingElement
from lhl_platform.scrub.versions import SCRUB_ITEM, SCRUB_SCORED

Suite = Literal["contractscrub", "insufficiency"]
Kind = Literal["edit", "term", "finding", "base", "variant", "element"]
Decision = Literal["accept", "reject", "wrong_location", "pre_existing", "wrong", "incomplete", "not_required"]

# The decisions each kind takes (anything else is refused on import); `lhl_platform.review.guide` says what each
# does to the gold.
DECISIONS: dict[str, tuple[str, ...]] = {
    "edit": ("accept", "reject", "wrong_location"),
    "term": ("accept", "reject", "wrong_location"),
    "finding": ("pre_existing", "wrong_location", "wrong"),
    "base": ("accept", "incomplete"),
    "variant": ("accept", "reject"),
    "element": ("accept", "not_required"),
}
# The decisions that change the gold; the others confirm it.
CHANGES = frozenset({"reject", "wrong_location", "pre_existing", "incomplete", "not_required"})
# The one decision that takes a corrected location (the sheet's `corrected_location` column).
RELOCATES = "wrong_location"

STREAM = "review"


class DecisionRecorded(Payload):
    """One reviewer's decision on one reviewable thing of a gold version's review sheet."""

    suite: Suite
    item_set: str
    gold_version: int = Field(ge=1, description="the gold version the sheet was exported from")
    ref: str = Field(pattern=r"^[0-9a-f]{16}$")
    item_id: str
    kind: Kind
    category: str
    decision: Decision
    location: str = Field(default="", description="the corrected location of a wrong_location decision")
    note: str = ""
    reviewer: str = Field(min_length=1)
    file_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class GoldVersionMade(Payload):
    """A gold version: made from `base_version` by the decisions of the sheets `files`."""

    suite: Suite
    item_set: str
    gold_version: int = Field(ge=2)
    base_version: int = Field(ge=1)
    files: tuple[str, ...] = Field(description="SHA-256 of each decisions file applied")
    reviewers: tuple[str, ...]
    reviewable: int = Field(ge=0, description="rows of the base version's sheet")
    reviewed: int = Field(ge=0, description="rows of that sheet some reviewer decided")
    changed: int = Field(ge=0, description="rows whose agreed decision changed the gold")
    disagreements: int = Field(ge=0, description="rows the reviewers decided differently (left as they were)")


class InsufficiencyGoldAtVersion(Payload):
    """An InsufficiencyBench item in a gold version: `kept` false when a reviewer rejected the variant."""

    item_set_id: str
    gold_version: int = Field(ge=2)
    item_id: str
    kind: Literal["base", "variant"]
    kept: bool
    missing_elements: tuple[MissingElement, ...]


class ReviewEventType:
    DECISION = "review.decision"
    GOLD_VERSION = "review.gold_version"
    SCRUB_ITEM = SCRUB_ITEM  # declared with the suite (lhl_platform.scrub.versions), which scores them
    SCRUB_SCORED = SCRUB_SCORED
    INSUFFICIENCY_GOLD = "review.insufficiency_gold"


EVENT_PAYLOADS: dict[str, type[BaseModel]] = {
    ReviewEventType.DECISION: DecisionRecorded,
    ReviewEventType.GOLD_VERSION: GoldVersionMade,
    ReviewEventType.INSUFFICIENCY_GOLD: InsufficiencyGoldAtVersion,
}

register_events(EVENT_PAYLOADS, owner=__name__)
