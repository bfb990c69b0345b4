"""The gold versions of a suite's active item set as one asset of the suite (`<suite>_gold_versions`), for the
suites whose gold `lhl review` versions: upstream of the stage that scores against the gold and of the SQL models
that read the review stream, and materialized with metadata that lists every version (how it was made, by whom,
how much of its sheet was reviewed, the decisions' events, a digest of its gold). Its data version is a digest of
that list, so a version made by `lhl review import` shows as a new data version at the asset's next
materialization, and a materialization that finds the same versions shows the same one.

The review's events are read here by their recorded JSON, through views of the fields this listing needs, since
the review sits above the suites (`lhl_platform.review.events` defines them)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from lhl_platform.domain.reviewed import Reviewed
from lhl_platform.events.model import Event
from lhl_platform.home import Home
from lhl_platform.suites.contract import Markdown, StageResult

REVIEW_STREAM = "review"
GOLD_VERSION, DECISION = "review.gold_version", "review.decision"
SHOWN_IDS = 10  # a version's decision event ids named in its metadata; the count is always whole


class _View(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class GoldVersionView(_View):
    """What the listing reads of a `review.gold_version` event."""

    suite: str
    item_set: str
    gold_version: int
    base_version: int
    files: tuple[str, ...]
    reviewers: tuple[str, ...]
    reviewable: int
    reviewed: int
    changed: int


class DecisionView(_View):
    """What the listing reads of a `review.decision` event."""

    suite: str
    item_set: str
    file_sha256: str


def review_stream(home: Home) -> list[Event]:
    log = home.events
    return log.read(REVIEW_STREAM) if (log.root / REVIEW_STREAM).exists() else []


def digest(rows: object) -> str:
    """SHA-256 of a JSON-able value, canonically encoded."""
    return hashlib.sha256(json.dumps(rows, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@dataclass(frozen=True)
class VersionLine:
    """One gold version as the asset lists it; the review's fields are None for version 1 (nothing reviewed)."""

    version: int
    made: str  # "built from ...", "ingested from ...", "review by A, B of version 1"
    digest: str  # SHA-256 of the version's gold
    reviewed: int | None = None  # rows of the base version's sheet some reviewer decided
    reviewable: int | None = None
    reviewers: tuple[str, ...] = ()
    decision_ids: tuple[str, ...] = ()  # the events of the decisions that made it
    changed: int | None = None

    def text(self) -> str:
        if self.reviewed is None:
            return f"{self.made}; digest {self.digest[:16]}"
        ids = ", ".join(self.decision_ids[:SHOWN_IDS])
        more = len(self.decision_ids) - SHOWN_IDS
        return (f"{self.made}: {self.reviewed} of {self.reviewable} rows reviewed by {len(self.reviewers)} "
                f"reviewer(s) ({', '.join(self.reviewers)}); {len(self.decision_ids)} decisions (events {ids}"
                f"{f' and {more} more' if more > 0 else ''}); {self.changed} change the gold; "
                f"digest {self.digest[:16]}")


def version_lines(events: Sequence[Event], suite: str, item_set: str, first_made: str,
                  digest_at: Callable[[int], str]) -> list[VersionLine]:
    """Version 1 (`first_made`: how the set was recorded) and every version a review made, oldest first."""
    decisions = [(e.event_id, DecisionView.model_validate_json(e.payload)) for e in events if e.type == DECISION]
    lines = [VersionLine(1, first_made, digest_at(1))]
    for e in events:
        if e.type != GOLD_VERSION:
            continue
        made = GoldVersionView.model_validate_json(e.payload)
        if (made.suite, made.item_set) != (suite, item_set):
            continue
        ids = tuple(i for i, d in decisions if d.file_sha256 in made.files and (d.suite, d.item_set) == (suite,
                                                                                                        item_set))
        lines.append(VersionLine(made.gold_version, f"review by {', '.join(made.reviewers)} of version "
                                 f"{made.base_version}", digest_at(made.gold_version), made.reviewed,
                                 made.reviewable, made.reviewers, ids, made.changed))
    return lines


def version_to_export(home: Home, suite: str, item_set: str, version: int | None) -> Reviewed | None:
    """The gold version an export writes (default: the newest), as its lines name it; None for version 1, which the
    recorded bytes already are. A version that does not exist is one error naming the versions there are."""
    made = [GoldVersionView.model_validate_json(e.payload) for e in review_stream(home) if e.type == GOLD_VERSION]
    made = [m for m in made if (m.suite, m.item_set) == (suite, item_set)]
    latest = max((m.gold_version for m in made), default=1)
    chosen = latest if version is None else version
    if not 1 <= chosen <= latest:
        raise LookupError(f"item set {item_set} of {suite} has no gold version {chosen}; its versions are 1 to "
                          f"{latest}")
    if chosen == 1:
        return None
    who = sorted({r for m in made if m.gold_version <= chosen for r in m.reviewers})
    return Reviewed(item_set=item_set, gold_version=chosen, reviewers=tuple(who))


def gold_result(suite: str, item_set: str, lines: Sequence[VersionLine]) -> StageResult:
    """The asset's metadata (the latest version, one entry per version and the table of them all) and its data
    version (a digest of the versions and their gold)."""
    table = ["| version | made | rows reviewed | reviewers | decisions | changed | digest |",
             "|---:|---|---|---|---:|---:|---|"]
    for v in lines:
        reviewed = "-" if v.reviewed is None else f"{v.reviewed} of {v.reviewable}"
        decided = "-" if v.reviewed is None else str(len(v.decision_ids))
        table.append(f"| {v.version} | {v.made} | {reviewed} | {', '.join(v.reviewers) or '-'} | {decided} | "
                     f"{'-' if v.changed is None else v.changed} | `{v.digest[:16]}` |")
    latest = lines[-1]
    metadata: dict[str, object] = {
        "suite": suite, "item_set": item_set, "gold_versions": len(lines), "latest_gold_version": latest.version,
        "latest_digest": latest.digest, "reviewers": ", ".join(sorted({r for v in lines for r in v.reviewers})),
        "decisions": sum(len(v.decision_ids) for v in lines),
        **{f"gold_version_{v.version}": v.text() for v in lines},
        "versions": Markdown("\n".join(table)),
    }
    return StageResult(metadata=metadata, data_version=digest([[v.version, v.digest] for v in lines]))


# The review stream's event types the suites' SQL reads besides each suite's own: their staging models sit
# downstream of the gold asset.
REVIEW_FEEDS = (GOLD_VERSION, DECISION)
