"""`lhl review import`: a filled-in decisions sheet recorded as events, and the gold version it makes.

A sheet is of one gold version V of one item set, and carries the digest of the rows it was exported with: it is
refused when V's sheet no longer has those rows (an audit imported since added finding rows, which the filled
sheet never showed its reviewer), so coverage is never counted against rows nobody saw. It is imported when V is
the latest version, or when every version after V was made from sheets of V (a second reviewer's copy of the
same sheet). The new version applies, per ref, the decision of the reviewers of V's sheets where they agree (a
wrong_location with the same corrected location) and it changes the gold (`reject`, `wrong_location`,
`pre_existing`, `incomplete`, `not_required`); where they disagree the ref stays as it was in V and is a disagreement to
settle (`lhl review agreement`). Everything (each decision, the version, the items as they stand in it and, for
ContractScrub, every answered call scored against it) is written in one atomic write: all of it or nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from pydantic import BaseModel

from lhl_platform.events.log import StreamWriter
from lhl_platform.home import Home
from lhl_platform.review import insufficiency_gold, scrub_gold
from lhl_platform.review.decisions import DecisionsError, read_rows, validate
from lhl_platform.review.events import (
    CHANGES,
    RELOCATES,
    STREAM,
    Decision,
    DecisionRecorded,
    GoldVersionMade,
    ReviewEventType,
    Suite,
)
from lhl_platform.review.rows import sheet_digest
from lhl_platform.review.scrub_sheet import answered_calls
from lhl_platform.review.sheets import SUITES, Sheet, sheet
from lhl_platform.review.versions import decisions, latest_version, review_events, versions
from lhl_platform.scrub.items import Finding
from lhl_platform.scrub.versions import Answer, CallKey


@dataclass(frozen=True)
class Imported:
    suite: str
    item_set: str
    base_version: int
    made: GoldVersionMade | None  # None: the file was imported before, nothing written
    decided: int
    rows: int


Verdict = tuple[str, str]  # (decision, corrected location: "" but for a wrong_location)


def settle(found: Sequence[DecisionRecorded]) -> tuple[dict[str, Verdict], set[str], set[str]]:
    """Per ref, the reviewers' latest decisions: (agreed verdicts by ref, refs decided, refs in disagreement)."""
    by_ref: dict[str, dict[str, Verdict]] = {}
    for d in found:
        by_ref.setdefault(d.ref, {})[d.reviewer] = (d.decision, d.location)
    agreed = {ref: next(iter(set(v.values()))) for ref, v in by_ref.items() if len(set(v.values())) == 1}
    return agreed, set(by_ref), {ref for ref, v in by_ref.items() if len(set(v.values())) > 1}


def _check_base(events: list[BaseModel], suite: str, item_set: str, version: int, name: str) -> None:
    made = versions(events, suite, item_set)
    latest = made[-1].gold_version if made else 1
    if version > latest or version < 1:
        raise DecisionsError(f"{name} is of gold version {version} of item set {item_set}, which has versions 1 to "
                             f"{latest}")
    later = [m for m in made if m.gold_version > version]
    if any(m.base_version != version for m in later):
        raise DecisionsError(f"{name} is of gold version {version} of item set {item_set}, but the gold is at version "
                             f"{latest}, made from another sheet; export the sheet of version {latest} "
                             f"(`lhl review export --suite {suite}`) and review that")


def import_decisions(home: Home, data: bytes, name: str, reviewer: str) -> Imported:
    if not reviewer.strip() or any(c in reviewer for c in ",\n\r\t"):
        raise DecisionsError(f"--reviewer {reviewer!r}: give the reviewer's name (no commas, tabs or line breaks)")
    header, raw = read_rows(data, name)
    if header.suite not in SUITES:
        raise DecisionsError(f"{name} line 2: suite {header.suite!r} has no gold to review ({', '.join(SUITES)})")
    events = review_events(home)
    _check_base(events, header.suite, header.item_set, header.gold_version, name)
    current = sheet(home, events, header.suite, header.item_set, header.gold_version)
    now = sheet_digest(current.rows)
    if header.sheet_digest != now:
        raise DecisionsError(f"{name} was exported from a sheet of {_rows_of(header.sheet_digest)} rows "
                             f"({header.sheet_digest}), but the sheet of gold version {header.gold_version} now has "
                             f"{len(current.rows)} ({now}): answers imported since changed its rows; export it again "
                             f"(`lhl review export --suite {header.suite}`) and carry the decisions over")
    decided = validate(raw, current.rows, name)
    if not decided:  # a blank sheet would make a "reviewed" gold version that nobody reviewed
        raise DecisionsError(f"{name}: no row has a decision; fill in the decision column of the rows reviewed")
    sha = hashlib.sha256(data).hexdigest()
    if any(d.file_sha256 == sha and d.reviewer == reviewer for d in decisions(events)):
        return Imported(header.suite, current.item_set, header.gold_version, None, len(decided), len(current.rows))
    new = [DecisionRecorded(suite=d.row.suite, item_set=current.item_set, gold_version=current.gold_version,
                            ref=d.row.ref, item_id=d.row.item_id, kind=d.row.kind, category=d.row.category,
                            decision=cast(Decision, d.decision), location=d.location, note=d.note, reviewer=reviewer,
                            file_sha256=sha)
           for d in decided]
    siblings = [m for m in versions(events, current.suite, current.item_set) if m.base_version == current.gold_version]
    files = tuple(dict.fromkeys([f for m in siblings for f in m.files] + [sha]))
    prior = [d for d in decisions(events, files) if d.item_set == current.item_set and d.suite == current.suite
             and d.gold_version == current.gold_version]
    agreed, reviewed, split = settle(prior + new)
    changes = {ref: v for ref, v in agreed.items() if v[0] in CHANGES}
    number = latest_version(events, current.suite, current.item_set) + 1
    made = GoldVersionMade(suite=cast(Suite, current.suite), item_set=current.item_set, gold_version=number,
                           base_version=current.gold_version, files=files,
                           reviewers=tuple(sorted({d.reviewer for d in prior + new})), reviewable=len(current.rows),
                           reviewed=len(reviewed), changed=len(changes), disagreements=len(split))
    calls = answered_calls(home, current.item_set) if current.suite == "contractscrub" else {}
    home.ensure()
    with home.events.writer(STREAM, atomic=True) as writer:
        # The stream is this writer's now: a review import that committed since `events` was read made its own
        # version from the same base, and this one would be numbered against stale state.
        if len(review_events(home)) != len(events):
            raise DecisionsError(f"{name}: another review import of this home committed while this one ran; "
                                 "nothing was written: import the file again")
        for d in new:
            writer.append(ReviewEventType.DECISION, d.ref, f"review.decision:{sha}:{reviewer}:{d.ref}", d)
        if not writer.append(ReviewEventType.GOLD_VERSION, f"{current.item_set}/{number}",
                             f"review.gold_version:{current.suite}:{current.item_set}:{number}", made):
            raise DecisionsError(f"{name}: gold version {number} of {current.item_set} was made by another import "
                                 "at the same time; nothing was written: import the file again")
        _write_gold(writer, current, number, changes, calls)
    return Imported(current.suite, current.item_set, current.gold_version, made, len(decided), len(current.rows))


def _rows_of(digest: str) -> str:
    count, _, _ = digest.partition("-")
    return count if count.isdigit() else "an unknown number of"


def _write_gold(writer: StreamWriter, current: Sheet, number: int, changes: dict[str, Verdict],
                calls: dict[CallKey, Answer]) -> None:
    if current.suite == "contractscrub":
        added: dict[str, list[Finding]] = {}
        for row in current.rows:
            verdict, location = changes.get(row.ref, ("", ""))
            if row.kind == "finding" and verdict in ("pre_existing", RELOCATES):
                f = current.findings[row.ref]
                added.setdefault(row.item_id, []).append(f.model_copy(update={"location": location})
                                                         if verdict == RELOCATES else f)
        rejected = {ref for ref, (d, _) in changes.items() if d == "reject"}
        moved = {ref: location for ref, (d, location) in changes.items() if d == RELOCATES}
        items = scrub_gold.apply(current.item_set, current.scrub_items, rejected, added, moved)
        for p in scrub_gold.items_at(current.item_set, number, items):
            writer.append(ReviewEventType.SCRUB_ITEM, p.contract_id,
                          f"review.scrub_item:{current.item_set}:{number}:{p.contract_id}", p)
        for s in scrub_gold.rescored(current.item_set, number, items, calls):
            writer.append(ReviewEventType.SCRUB_SCORED, f"{s.contract_id}/{s.category}", s.key(), s)
    else:
        gold = insufficiency_gold.apply(current.item_set, current.gold_items, {r: d for r, (d, _) in changes.items()})
        for q in insufficiency_gold.items_at(current.item_set, number, gold):
            writer.append(ReviewEventType.INSUFFICIENCY_GOLD, q.item_id,
                          f"review.insufficiency_gold:{current.item_set}:{number}:{q.item_id}", q)
