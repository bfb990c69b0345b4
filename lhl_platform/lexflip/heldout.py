"""LexFlip's held-out sets: hand-written rewrites of real CUAD clauses, shipped with the package. Every
`data/clause_heldout_*.jsonl` is one set, and a clause judge is validated only if it passes every one of them
(`scoring.GATE`); a set added later joins the gate by being shipped.

`data/clause_heldout_v1.jsonl` holds 68 rewrites of 31 CUAD v1 clauses (the clause text itself is shipped, so the
set works without CUAD): 40 keep legal force in ways the rubric lexicon and the LexFlip edit list
(`lhl_platform.edits.force`) were not written from (plain English throughout, other clause orders, defined terms
expanded, other words, sentences split), expected *supported*; 28 change it in other words (durations, amounts,
bounds, parties, polarity, modality, conditions dropped or added, scope), expected *contradicted*. They were
written by hand from the clause text alone, fixed and hashed (`lhl_platform.judging.heldout`) before any judge was
run on them, and no judge is tuned to them: they are held out for every judge. Self-built (the platform's
engineers wrote them, not attorneys).

`data/clause_heldout_v2.jsonl` holds 72 rewrites of 33 other CUAD v1 clauses (contracts not in v1, 20 clause types)
in other styles: 42 keep legal force (defined terms expanded, numbers restated, clause orders changed,
cross-references renumbered), 30 change it in the same styles. It was fixed and hashed before the abstaining
`aligned` judge was written and before any judge was run on it.

Each case becomes a `SuiteItem` scored like the generated suite (the gate's thresholds, the LexFlip view); its
unrelated text is the truth of the next case of another clause type and contract.
"""

from __future__ import annotations

import fnmatch
import functools
import json
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from lhl_platform.domain.models import MismatchType, VerdictLabel
from lhl_platform.edits.force import Family
from lhl_platform.judging.heldout import HeldOutError, HeldOutHeader, read_hashed
from lhl_platform.lexflip.items import SuiteItem

HELDOUT_FILE = "clause_heldout_v1.jsonl"
HELDOUT_GLOB = "clause_heldout_*.jsonl"
HELDOUT_FAMILIES = (Family.FORCE_KEPT, Family.FORCE_CHANGED)


class HeldOutCase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    family: Literal["force_kept", "force_changed"]
    kind: str
    clause_type: str
    contract_id: str
    truth: str
    text: str
    expected_verdict: VerdictLabel
    expected_mismatch: MismatchType
    note: str = ""


class HeldOutSet(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    header: HeldOutHeader
    items: tuple[SuiteItem, ...]

    @property
    def digest(self) -> str:
        return self.header.sha256[:16]


def parse_heldout(text: str, name: str = HELDOUT_FILE) -> HeldOutSet:
    header, body = read_hashed(text, name)
    cases: list[HeldOutCase] = []
    for number, line in enumerate(body.splitlines(), start=2):
        try:
            case = HeldOutCase.model_validate(json.loads(line))
        except (ValueError, ValidationError) as exc:
            raise HeldOutError(f"{name}: line {number}: {str(exc).splitlines()[0]}") from None
        want = VerdictLabel.SUPPORTED if Family(case.family) is Family.FORCE_KEPT else VerdictLabel.CONTRADICTED
        if case.expected_verdict is not want or (case.expected_mismatch is MismatchType.NONE) != (
                want is VerdictLabel.SUPPORTED):
            raise HeldOutError(f"{name}: line {number}: a {case.family} case expects {want.value} (with a mismatch "
                               "type exactly when contradicted)")
        cases.append(case)
    if len({c.case_id for c in cases}) != len(cases):
        raise HeldOutError(f"{name}: a case_id is used twice")
    items = tuple(SuiteItem(item_id=c.case_id, family=Family(c.family), kind=c.kind, clause_type=c.clause_type,
                            contract_id=c.contract_id, truth=(c.truth,), edited=c.text,
                            expected_verdict=c.expected_verdict, expected_mismatch=c.expected_mismatch,
                            unrelated=_unrelated(cases, n)) for n, c in enumerate(cases))
    return HeldOutSet(header=header, items=items)


def _unrelated(cases: list[HeldOutCase], n: int) -> str:
    """The truth of the next case (cyclically) of another clause type and another contract."""
    here = cases[n]
    for step in range(1, len(cases)):
        other = cases[(n + step) % len(cases)]
        if other.clause_type != here.clause_type and other.contract_id != here.contract_id:
            return other.truth
    return "This Agreement may be executed in counterparts, each of which shall be deemed an original."


@functools.cache
def heldout_set(name: str = HELDOUT_FILE) -> HeldOutSet:
    """One shipped held-out set, its hash checked."""
    text = resources.files("lhl_platform.lexflip").joinpath("data", name).read_text(encoding="utf-8")
    return parse_heldout(text, name)


def heldout_files() -> tuple[str, ...]:
    """The shipped held-out sets' files, in name order."""
    data = resources.files("lhl_platform.lexflip").joinpath("data")
    return tuple(sorted(p.name for p in data.iterdir() if fnmatch.fnmatch(p.name, HELDOUT_GLOB)))


def heldout_sets() -> tuple[HeldOutSet, ...]:
    """Every shipped held-out set, each hash checked: the sets the gate reads."""
    return tuple(heldout_set(name) for name in heldout_files())


def shipped_sets() -> list[tuple[str, str]]:
    """(name, sha256) of every held-out set shipped now: what a result must have passed to validate a judge."""
    return [(h.header.set, h.header.sha256) for h in heldout_sets()]
