"""What an item exported at a reviewed gold version says of its gold: the set it was reviewed in, the version and
who reviewed it. Written on every line of such an export (never on version 1, whose bytes stay the release's)."""

from __future__ import annotations

from pydantic import Field

from lhl_platform.domain.models import Frozen


class Reviewed(Frozen):
    item_set: str = Field(min_length=1, description="the item set whose gold was reviewed")
    gold_version: int = Field(ge=2, description="the gold version exported")
    reviewers: tuple[str, ...] = Field(description="everyone whose decisions made that version or one before it")
