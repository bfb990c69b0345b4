"""`overlap`: a negative-control judge that reads surface form only.

The similarity of an extraction with the ground truth is the Jaccard index of their content-token
sets (lower-cased words and figures, stop words and cross-references left out), taken against the
best-matching span. The extraction is `supported` when the similarity reaches THRESHOLD, else
`contradicted` with mismatch_type `other`.

It exists to be rejected: an edit such as shall -> may, a dropped "not" or a swapped pair of
parties keeps nearly every token, so this judge calls it supported. A judge-validation suite that
does not fail it on edits that change legal force is not testing legal force.
"""

from __future__ import annotations

from lhl_platform.domain.models import MismatchType, Verdict, VerdictLabel
from lhl_platform.lexicon import content, tokens

NAME = "overlap"
VERSION = "overlap-v1"
# Half of the union of content tokens shared: a quote of the right passage with some words missing
# or added passes, a different passage of the same contract does not.
THRESHOLD = 0.5


def similarity(truth: tuple[str, ...] | list[str] | str, extracted: str) -> float:
    """Jaccard similarity of content tokens with the best-matching span, in [0, 1]."""
    spans = [truth] if isinstance(truth, str) else list(truth)
    ext = content(tokens(extracted))
    best = 0.0
    for span in spans:
        ref = content(tokens(span))
        if ref or ext:
            best = max(best, len(ref & ext) / len(ref | ext))
    return best


def judge(clause_type: str, truth: tuple[str, ...] | list[str] | str, extracted: str) -> Verdict:
    """Same signature as `rubric.judge`; the reason gives the similarity and the threshold."""
    score = similarity(truth, extracted)
    if score >= THRESHOLD:
        return Verdict(verdict=VerdictLabel.SUPPORTED, mismatch_type=MismatchType.NONE,
                       reason=f"token overlap {score:.2f} >= {THRESHOLD}")
    return Verdict(verdict=VerdictLabel.CONTRADICTED, mismatch_type=MismatchType.OTHER,
                   reason=f"token overlap {score:.2f} < {THRESHOLD}")
