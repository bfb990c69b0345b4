"""`overlap`: a negative-control judge that reads surface form only.

Supported when the content-token Jaccard similarity of extraction and ground truth reaches THRESHOLD,
else contradicted/other. It cannot see that `shall` -> `may` changes legal force: a judge-validation
harness must reject it.
"""

from __future__ import annotations

from lhl_platform.domain.models import MismatchType, Verdict, VerdictLabel
from lhl_platform.lexicon import content, tokens

NAME = "overlap"
VERSION = "overlap-v1"
THRESHOLD = 0.5


def similarity(truth: tuple[str, ...] | list[str] | str, extracted: str) -> float:
    spans = [truth] if isinstance(truth, str) else list(truth)
    ext = content(tokens(extracted))
    best = 0.0
    for span in spans:
        ref = content(tokens(span))
        if ref or ext:
            best = max(best, len(ref & ext) / len(ref | ext))
    return best


def judge(clause_type: str, truth: tuple[str, ...] | list[str] | str, extracted: str) -> Verdict:
    score = similarity(truth, extracted)
    if score >= THRESHOLD:
        return Verdict(verdict=VerdictLabel.SUPPORTED, mismatch_type=MismatchType.NONE,
                       reason=f"token overlap {score:.2f} >= {THRESHOLD}")
    return Verdict(verdict=VerdictLabel.CONTRADICTED, mismatch_type=MismatchType.OTHER,
                   reason=f"token overlap {score:.2f} < {THRESHOLD}")
