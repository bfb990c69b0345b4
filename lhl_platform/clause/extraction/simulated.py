"""`simulated`: extractors with a declared error profile, for calibrating the audit itself.

These are *calibration tools*, not models: they read the answer key (the corpus oracle) and start
from the ground truth, then apply seeded, typed perturbations at declared rates:
- per category, FAR (an absent clause is "found": a random sentence is quoted) and FRR (a present
  clause is called absent);
- per category, HalTP: the share of detected clauses whose content is corrupted;
- the direction mix of corruptions: `missing_share` drop a carve-out, `extra_share` add a condition,
  the rest a category-native error (numeric: change an amount; temporal: shift a date or duration;
  obligation: flip shall/may; factual: quote the wrong passage). When a clause offers nothing to drop
  the drop probability is raised on clauses that do, so the declared shares hold over the corpus;
  a native error that does not apply falls back to quoting the wrong passage.

Because every decision is seeded by (seed, run, contract, clause type), a run is reproducible and
independent of processing order. The audit must recover the declared profile within sampling error:
that is the test of the audit pipeline (tests/test_simulated_recovery.py).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from functools import cached_property

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.clause.extraction.lexical import sentences
from lhl_platform.clause.extraction.task import ClauseAnswer, ExtractionOutput, ExtractTask
from lhl_platform.domain.models import MismatchType, OracleRow
from lhl_platform.domain.taxonomy import CATEGORY_OF, Category
from lhl_platform.edits import errors as perturb

NAME = "simulated"
VERSION = "simulated-v1"
Rate = float


class CategoryProfile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    far: Rate = Field(ge=0, le=1)
    frr: Rate = Field(ge=0, le=1)
    hal_tp: Rate = Field(ge=0, le=1)


class ErrorProfile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    description: str = ""
    seed: int = 0
    categories: dict[Category, CategoryProfile]
    missing_share: Rate = Field(ge=0, le=1)
    extra_share: Rate = Field(ge=0, le=1)

    @property
    def declared_rdi(self) -> float:
        return self.extra_share - self.missing_share


def _profile(name: str, description: str, seed: int, typed: dict[Category, tuple[float, float, float]],
             missing: float, extra: float) -> ErrorProfile:
    return ErrorProfile(name=name, description=description, seed=seed, missing_share=missing, extra_share=extra,
                        categories={c: CategoryProfile(far=f, frr=r, hal_tp=h) for c, (f, r, h) in typed.items()})


# Two profiles with matched typed HalTP but opposite direction, like the paper's gpt-5.2 (+0.161)
# and qwen3-32b (-0.202); a third with a balanced direction and high detection errors.
PROFILES: dict[str, ErrorProfile] = {p.name: p for p in (
    _profile("inventor", "invents conditions: extra 21%, missing 5% of contradictions (RDI +0.16)", 11, {
        Category.NUMERIC: (0.12, 0.12, 0.70), Category.OBLIGATION: (0.12, 0.11, 0.65),
        Category.FACTUAL: (0.10, 0.08, 0.44), Category.TEMPORAL: (0.11, 0.12, 0.30)}, missing=0.05, extra=0.21),
    _profile("omitter", "drops conditions: missing 24%, extra 3.5% of contradictions (RDI -0.20)", 23, {
        Category.NUMERIC: (0.13, 0.11, 0.67), Category.OBLIGATION: (0.14, 0.11, 0.69),
        Category.FACTUAL: (0.11, 0.09, 0.39), Category.TEMPORAL: (0.13, 0.11, 0.29)}, missing=0.24, extra=0.035),
    _profile("balanced", "over-eager detector with balanced direction (RDI about 0)", 37, {
        Category.NUMERIC: (0.20, 0.05, 0.60), Category.OBLIGATION: (0.19, 0.04, 0.62),
        Category.FACTUAL: (0.15, 0.03, 0.36), Category.TEMPORAL: (0.18, 0.05, 0.30)}, missing=0.12, extra=0.12),
)}


def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


class SimulatedExtractor:
    """Answers ExtractTasks from the oracle, corrupted according to an ErrorProfile."""

    def __init__(self, profile: ErrorProfile, oracle: Iterable[OracleRow], run: int) -> None:
        self.profile = profile
        self.run = run
        self.oracle = {(r.contract_id, r.clause_type): r for r in oracle}

    @cached_property
    def _p_drop(self) -> float:
        """Probability of dropping a condition from a corrupted clause that holds one.

        Only some clauses hold a condition to drop, so the probability is raised on those until the
        expected number of drops over the corpus equals `missing_share` of all corruptions.
        """
        expected_errors = expected_droppable = 0.0
        for row in self.oracle.values():
            if row.present:
                p = self.profile.categories[row.category]
                errors = (1 - p.frr) * p.hal_tp
                expected_errors += errors
                if perturb.drop_condition(max(row.spans, key=len), random.Random(0)) is not None:
                    expected_droppable += errors
        if expected_droppable == 0:
            return 0.0
        return min(1.0, self.profile.missing_share * expected_errors / expected_droppable)

    def extract(self, task: ExtractTask) -> ExtractionOutput:
        sents = [s.text for s in sentences(task.contract_text)]
        answers = []
        for clause in task.clause_types:
            row = self.oracle.get((task.contract_id, clause))
            if row is None:
                raise KeyError(f"simulated model has no oracle row for {task.contract_id!r} / {clause!r}")
            answers.append(self._answer(row, sents))
        return ExtractionOutput(clauses=answers)

    def _answer(self, row: OracleRow, sents: list[str]) -> ClauseAnswer:
        p = self.profile.categories[CATEGORY_OF[row.clause_type]]
        rng = _rng(self.profile.seed, self.profile.name, self.run, row.contract_id, row.clause_type)
        absent = ClauseAnswer(clause_type=row.clause_type, present=False)
        if not row.present:
            if rng.random() < p.far:
                quote = perturb.wrong_passage(sents, (), rng)
                if quote:
                    return ClauseAnswer(clause_type=row.clause_type, present=True, quotes=[quote])
            return absent
        if rng.random() < p.frr:
            return absent
        quotes = list(row.spans)
        if rng.random() < p.hal_tp:
            target = max(range(len(quotes)), key=lambda i: len(quotes[i]))
            kind, text = self._corrupt(row, quotes[target], sents, rng)
            quotes = [text] if kind == MismatchType.SCOPE else quotes[:target] + [text] + quotes[target + 1:]
        return ClauseAnswer(clause_type=row.clause_type, present=True, quotes=quotes)

    def _corrupt(self, row: OracleRow, text: str, sents: list[str], rng: random.Random) -> tuple[str, str]:
        category = CATEGORY_OF[row.clause_type]
        dropped = perturb.drop_condition(text, rng)
        if dropped is not None and rng.random() < self._p_drop:
            return MismatchType.MISSING_CONDITION, dropped
        p_extra = self.profile.extra_share / max(1e-9, 1 - self.profile.missing_share)
        if rng.random() < p_extra:
            return MismatchType.EXTRA_CONDITION, perturb.add_condition(text, rng)
        native = {Category.NUMERIC: (MismatchType.NUMERIC, perturb.change_amount),
                  Category.TEMPORAL: (MismatchType.TEMPORAL, perturb.shift_date),
                  Category.OBLIGATION: (MismatchType.OBLIGATION, perturb.flip_modal)}.get(category)
        if native is not None:
            changed = native[1](text, rng)
            if changed is not None and changed != text:
                return native[0], changed
        wrong = perturb.wrong_passage(sents, row.spans, rng)
        return MismatchType.SCOPE, wrong or perturb.add_condition(text, rng)
