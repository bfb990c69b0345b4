"""The debate's small vocabularies. Kept free of provider and event-log imports, so the event payload
classes built on them can be registered with the log without an import cycle."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    SKEPTIC = "skeptic"
    SUPPORTER = "supporter"
    REEXTRACTOR = "reextractor"
    ARBITER = "arbiter"
    VERIFIER = "verifier"
    JUDGE = "judge"


class Position(StrEnum):
    PRESENT = "present"
    ABSENT = "absent"


class ChallengeKind(StrEnum):
    PRESENCE = "presence"                        # is the claimed clause in the contract, and is it this clause?
    OMISSION = "omission"                        # does the contract hold the clause the extraction says is absent?
    VALUE_VERBATIM = "value_verbatim"            # numeric: amounts verbatim, not a common default
    MODAL_PRESERVED = "modal_preserved"          # obligation: shall/must stays an obligation, may a permission
    POLARITY_PRESERVED = "polarity_preserved"    # obligation: negations kept
    STATED_NOT_INFERRED = "stated_not_inferred"  # temporal: dates and durations stated, not computed
    FROM_DOCUMENT = "from_document"              # factual: names and places from the contract only
    CARVE_OUTS_CAPTURED = "carve_outs_captured"  # every condition and carve-out of the source kept
    NO_ADDED_CONDITIONS = "no_added_conditions"  # no condition the source lacks


class Route(StrEnum):
    """Where the debate goes after a Supporter turn (or after the re-extraction)."""

    REEXTRACT = "reextract"
    VERIFY = "verify"
    NEXT_ROUND = "next_round"
    ARBITER = "arbiter"
