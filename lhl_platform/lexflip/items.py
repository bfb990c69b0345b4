"""The LexFlip suite's items: edits of a corpus's own annotated spans, each with the answer a judge should give by
construction (the edits are `lhl_platform.edits.force`), and for every item an unrelated span (another clause of
another contract), the far end of the LexFlip margin.

Kinds are sampled across clause types with a seeded random generator, so the same corpus and seed always give the
same suite; the suite carries a version and a digest.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, Sequence

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.domain.models import MismatchType, OracleRow, VerdictLabel
from lhl_platform.edits.force import KINDS, Family, edit_span
from lhl_platform.judging import overlap, rubric

SUITE_VERSION = "judge-suite-v2"  # v2: the unrelated family, and a LexFlip score on every item
_SEEDS = "judge-suite-v1"  # the random draws of v1, so its items are v2's too
UNRELATED = "unrelated"
DEFAULT_PER_KIND = 20
MIN_SUITE_ITEMS = 300  # the size a suite on the full CUAD corpus should reach
MAX_SPAN_CHARS = 1200  # longer spans make costly LLM items and add nothing to the test
MIN_SPAN_WORDS = 3

# The families of this suite each judge's rules were written from, by the judge's version (an offline algorithm's
# version; an LLM judge declares none). rubric's lexicon (`lhl_platform.lexicon`: plain-English equivalents, number
# words, modal classes, numbering, coordinate order, articles) was written from the same edit list
# (`lhl_platform.edits.force`) that builds every family here, and revised until it passed, so its result on this
# suite is in-sample throughout; the overlap control's threshold was set with this suite in view. Their figures on
# the held-out family (`lhl_platform.lexflip.heldout`) are the ones that say something about text they were not
# written for.
IN_SAMPLE: dict[str, tuple[Family, ...]] = {rubric.VERSION: tuple(Family), overlap.VERSION: tuple(Family)}


class SuiteItem(_Frozen):
    item_id: str
    family: Family
    kind: str
    clause_type: str
    contract_id: str
    truth: tuple[str, ...]  # the annotated span the edit was made on
    edited: str  # the text the judge compares with `truth`
    expected_verdict: VerdictLabel
    expected_mismatch: MismatchType  # `none` for families (a) and (c)
    unrelated: str  # a span of another clause type and contract: the far end of the LexFlip margin


class Suite(_Frozen):
    version: str
    seed: int
    per_kind: int
    items: tuple[SuiteItem, ...]

    def digest(self) -> str:
        """A short fingerprint of the items, to record which suite a result came from."""
        return hashlib.sha256("\n".join(i.model_dump_json() for i in self.items).encode()).hexdigest()[:16]


def _eligible(span: str) -> bool:
    return len(span) <= MAX_SPAN_CHARS and len(re.findall(r"[A-Za-z0-9]+", span)) >= MIN_SPAN_WORDS


def build_suite(oracle_rows: Iterable[OracleRow], *, seed: int = 0, per_kind: int = DEFAULT_PER_KIND,
                kinds: Sequence[str] | None = None) -> Suite:
    """Build the suite from the annotated spans of present clauses.

    For every kind, up to `per_kind` items are drawn round-robin over clause types (in a seeded order)
    so that each kind spreads over as many clause types as offer a span it applies to. Each span's edit
    is seeded by (suite version, seed, kind, contract, clause type, span index): the same corpus and
    seed always give the same suite, whatever the order of the rows.
    """
    pool = [(row, i, span) for row in oracle_rows if row.present for i, span in enumerate(row.spans)
            if _eligible(span)]
    pool.sort(key=lambda p: (p[0].contract_id, p[0].clause_type, p[1]))
    chosen = [k for k in KINDS if kinds is None or k.kind in kinds]
    items: list[SuiteItem] = []
    for spec in chosen:
        rng = random.Random(f"{_SEEDS}|{seed}|{spec.kind}")
        by_type: dict[str, list[tuple[OracleRow, int, str]]] = {}
        for entry in pool:
            by_type.setdefault(entry[0].clause_type, []).append(entry)
        types = sorted(by_type)
        rng.shuffle(types)
        for entries in by_type.values():
            rng.shuffle(entries)
        taken = 0
        while taken < per_kind and any(by_type[t] for t in types):
            for clause_type in types:
                if taken >= per_kind:
                    break
                entries = by_type[clause_type]
                while entries:
                    row, index, span = entries.pop()
                    item_rng = random.Random(
                        f"{_SEEDS}|{seed}|{spec.kind}|{row.contract_id}|{row.clause_type}|{index}")
                    edited = edit_span(spec.kind, span, item_rng)
                    if edited is None:
                        continue
                    items.append(SuiteItem(
                        item_id=f"{spec.kind}-{taken + 1:03d}", family=spec.family, kind=spec.kind,
                        clause_type=row.clause_type, contract_id=row.contract_id, truth=(span,), edited=edited,
                        expected_verdict=(VerdictLabel.CONTRADICTED if spec.family is Family.FORCE_CHANGED
                                          else VerdictLabel.SUPPORTED),
                        expected_mismatch=spec.expected_mismatch,
                        unrelated=_unrelated(pool, row, item_rng)))
                    taken += 1
                    break
    if kinds is None or UNRELATED in kinds:
        items += _unrelated_items(pool, seed, per_kind)
    return Suite(version=SUITE_VERSION, seed=seed, per_kind=per_kind, items=tuple(items))


def _unrelated_items(pool: Sequence[tuple[OracleRow, int, str]], seed: int, per_kind: int) -> list[SuiteItem]:
    """Family (d): a span judged against a clause of another type and contract; contradicted, the wrong passage."""
    rng = random.Random(f"{_SEEDS}|{seed}|{UNRELATED}")
    order = list(pool)
    rng.shuffle(order)
    out: list[SuiteItem] = []
    for row, index, span in order[:per_kind]:
        item_rng = random.Random(f"{_SEEDS}|{seed}|{UNRELATED}|{row.contract_id}|{row.clause_type}|{index}")
        other = _unrelated(pool, row, item_rng)
        out.append(SuiteItem(item_id=f"{UNRELATED}-{len(out) + 1:03d}", family=Family.UNRELATED, kind=UNRELATED,
                             clause_type=row.clause_type, contract_id=row.contract_id, truth=(span,), edited=other,
                             expected_verdict=VerdictLabel.CONTRADICTED, expected_mismatch=MismatchType.SCOPE,
                             unrelated=other))
    return out


def _unrelated(pool: Sequence[tuple[OracleRow, int, str]], row: OracleRow, rng: random.Random) -> str:
    for _ in range(50):
        other, _, span = pool[rng.randrange(len(pool))]
        if other.clause_type != row.clause_type and other.contract_id != row.contract_id and len(span.split()) >= 5:
            return span
    return "This Agreement may be executed in counterparts, each of which shall be deemed an original."


