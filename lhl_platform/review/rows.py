"""One row of a review sheet: a reviewable thing of one gold version, what the reviewer reads about it and the
columns of decisions.csv."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.review.events import Kind, Suite

CSV_COLUMNS = ("ref", "suite", "item_set", "gold_version", "item_id", "kind", "category", "decision", "note")


class ReviewRow(BaseModel):
    """A reviewable thing: an injected edit, a model finding that matched no gold, an item variant, a missing
    element. `before` / `removed` / `inserted` / `after` show the change in its context; `gold` what the gold
    says of it; `found_by` (findings) the audited models that reported it."""

    model_config = ConfigDict(frozen=True)

    ref: str
    suite: Suite
    item_set: str
    gold_version: int = Field(ge=1)
    item_id: str
    kind: Kind
    category: str
    before: str = ""
    removed: str = ""
    inserted: str = ""
    after: str = ""
    gold: str = ""
    found_by: tuple[str, ...] = ()

    def csv_row(self) -> dict[str, str]:
        return {"ref": self.ref, "suite": self.suite, "item_set": self.item_set,
                "gold_version": str(self.gold_version), "item_id": self.item_id, "kind": self.kind,
                "category": self.category, "decision": "", "note": ""}
