"""`aligned`: an offline clause judge that abstains where its evidence does not decide.

The rubric judge (`rubric.py`) reads legal force through a lexicon of equivalences: on a near-verbatim
extraction its findings are evidence, but outside the lexicon every rephrasing reads as a change. This judge
decides only where that reading holds, and says `undetermined` elsewhere.

Algorithm (fixed before it was run on any held-out set; no threshold was fitted to one):

1. Both texts become canonical terms, and the extraction is compared with the ground-truth span(s) it
   covers, as the rubric does (formatting, numbering, number words, listed legalese equivalents set aside).
2. An empty extraction, or one sharing almost no content term with the source (at most MAX_FOREIGN of either
   side's content terms), quotes another passage: `contradicted`, `scope`.
3. The alignment ratio of the two term sequences (difflib: twice the matched terms over all terms) measures
   how local the difference is. At MIN_ALIGNMENT or above the extraction is a local edit of the source, so
   the rubric's verdict decides (its findings name the words that changed).
4. Below it the extraction is a rewrite. If the rubric finds nothing (no number, date, modal, negation,
   condition or quantifier differs), that reading still holds: `supported`. If it finds something, the
   finding may be a rephrasing the lexicon does not know, or a real change: `undetermined`, with the
   rubric's finding and the ratio in the reason. It is never counted as supported or as contradicted.

MIN_ALIGNMENT = 0.8: the judge-validation suite's edits (LexFlip, `edits/force.py`) replace a few terms of a
clause tens of terms long, which keeps the ratio near 0.9 or above; a difference over a fifth of the terms is
no longer a local edit. MAX_FOREIGN = 0.2: a different passage of the same contract shares little more than
the parties' names.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from lhl_platform.domain.models import MismatchType, Verdict, VerdictLabel
from lhl_platform.judging import rubric
from lhl_platform.lexicon import canonical_terms

NAME = "aligned"
VERSION = "aligned-v1"
MIN_ALIGNMENT = 0.8
MAX_FOREIGN = 0.2


def alignment(truth: tuple[str, ...] | list[str] | str, extracted: str) -> tuple[float, float]:
    """(alignment ratio, content overlap) of an extraction with the ground truth it covers, each in [0, 1].

    The overlap is the larger of recall and precision of content terms; the ratio is difflib's on the
    canonical term sequences."""
    spans = (truth,) if isinstance(truth, str) else tuple(truth)
    ext = [t.key for t in canonical_terms(extracted)]
    ref = [t.key for t in rubric.covered_reference([canonical_terms(s) for s in spans if s.strip()], ext)]
    if not ext or not ref:
        return 0.0, 0.0
    return SequenceMatcher(a=ref, b=ext, autojunk=False).ratio(), max(rubric.content_overlap(ref, ext))


def judge(clause_type: str, truth: tuple[str, ...] | list[str] | str, extracted: str) -> Verdict:
    """Same signature as `rubric.judge`; the reason gives the alignment ratio behind the decision or abstention."""
    ratio, overlap = alignment(truth, extracted)
    if overlap <= MAX_FOREIGN:
        what = "the extraction is empty" if not extracted.strip() else \
            f"quotes a different passage (content overlap {overlap:.2f} <= {MAX_FOREIGN})"
        return Verdict(verdict=VerdictLabel.CONTRADICTED, mismatch_type=MismatchType.SCOPE, reason=f"scope: {what}")
    reading = rubric.judge(clause_type, truth, extracted)
    if ratio >= MIN_ALIGNMENT:
        return Verdict(verdict=reading.verdict, mismatch_type=reading.mismatch_type,
                       reason=f"local edit (alignment {ratio:.2f}): {reading.reason}"[:300])
    if reading.verdict is VerdictLabel.SUPPORTED:
        return Verdict(verdict=VerdictLabel.SUPPORTED, mismatch_type=MismatchType.NONE,
                       reason=f"rewrite (alignment {ratio:.2f}): no number, date, modal, negation, condition or "
                              "quantifier differs")
    return Verdict(verdict=VerdictLabel.UNDETERMINED, mismatch_type=MismatchType.NONE,
                   reason=f"rewrite (alignment {ratio:.2f} < {MIN_ALIGNMENT}): the rubric's finding may be a "
                          f"rephrasing it does not know; {reading.reason}"[:300])
