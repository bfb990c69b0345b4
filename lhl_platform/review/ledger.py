"""What the review stream holds, in a line for `lhl verify`: the decisions recorded (events of the hash-chained
log like every other, so `lhl verify` proves them) and the gold versions they made."""

from __future__ import annotations

from lhl_platform.home import Home
from lhl_platform.review.events import DecisionRecorded, GoldVersionMade
from lhl_platform.review.versions import review_events


def review_summary(home: Home) -> str | None:
    """None when nothing was reviewed."""
    events = review_events(home)
    found = [p for p in events if isinstance(p, DecisionRecorded)]
    if not found:
        return None
    reviewers = sorted({d.reviewer for d in found})
    latest: dict[tuple[str, str], int] = {}
    for m in events:
        if isinstance(m, GoldVersionMade):
            latest[(m.suite, m.item_set)] = m.gold_version
    versions = "; ".join(f"{suite} {item_set} at gold version {v}" for (suite, item_set), v in sorted(latest.items()))
    return (f"review: {len(found)} decisions by {len(reviewers)} reviewer(s) ({', '.join(reviewers)}), in the log "
            f"verified above; {versions}")
