"""`rubric`: a deterministic offline judge implementing the five criteria of SPEC section 3.

Algorithm. The extraction is compared with the ground-truth span(s) it covers (every span at least
half of whose tokens it contains, else the best-overlapping span). If the two barely overlap, the
model quoted the wrong part of the contract: `scope`. Otherwise the token sequences are aligned
(difflib) and every differing chunk is classified:

1. numeric precision - a changed amount, percentage or count: `numeric`;
2. temporal precision - a changed date, or a changed number next to a time unit: `temporal`;
3. modality - shall/must/will on one side, may/can/entitled on the other: `obligation`;
4. polarity - a negation present on one side only: `obligation`;
5. carve-out preservation - source text holding a condition marker (except, unless, provided that,
   subject to, within, up to, ...) that the extraction drops: `missing_condition`; a condition the
   extraction asserts that the source lacks: `extra_condition`.

Unmarked text the extraction leaves out or adds is tolerated unless it dominates (recall below 0.6
or precision below 0.35): `scope`. The first finding in the order above decides the label; no
finding means `supported`. It is a baseline for offline runs and a calibration reference for LLM
judges, not a substitute for one: it cannot see paraphrase that keeps meaning, or meaning changed
without a marker word.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from lhl_platform.domain.models import MismatchType, Verdict, VerdictLabel
from lhl_platform.lexicon import (
    TIME_UNITS,
    condition_markers,
    content,
    has_month,
    modal_classes,
    negation_count,
    numbers,
    tokens,
)

NAME = "rubric"
VERSION = "rubric-v1"
MIN_OVERLAP = 0.5
MIN_RECALL = 0.6
MIN_PRECISION = 0.35


@dataclass(frozen=True)
class _Finding:
    mismatch: MismatchType
    reason: str


def _overlap(reference: list[str], extracted: list[str]) -> tuple[float, float]:
    ref, ext = content(reference), content(extracted)
    common = len(ref & ext)
    return common / max(1, len(ref)), common / max(1, len(ext))


def _reference(truth: tuple[str, ...], extracted: list[str]) -> list[str]:
    ext = content(extracted)
    covered = [tokens(span) for span in truth if span.strip()]
    chosen = [t for t in covered if content(t) and len(content(t) & ext) / len(content(t)) >= 0.5]
    if chosen:
        return [tok for t in chosen for tok in t]
    return max(covered, key=lambda t: sum(_overlap(t, extracted)), default=[])


def _near_time_unit(seq: list[str], start: int, end: int) -> bool:
    window = seq[max(0, start - 2): end + 3]
    return any(t in TIME_UNITS for t in window)


def _is_temporal(seq: list[str], start: int, end: int) -> bool:
    chunk = seq[start:end]
    if has_month(chunk):
        return True
    if numbers(chunk) and (_near_time_unit(seq, start, end) or has_month(seq[max(0, start - 2): end + 2])):
        return True
    return any(t.isdigit() and 1900 <= int(t) <= 2100 for t in chunk) and has_month(seq[max(0, start - 3): end + 3])


def _classify(ref: list[str], ext: list[str]) -> list[_Finding]:
    findings: list[_Finding] = []
    matcher = SequenceMatcher(a=ref, b=ext, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        lost, added = ref[a0:a1], ext[b0:b1]
        lost_text, added_text = " ".join(lost), " ".join(added)
        if op == "replace" or (lost and added):
            if numbers(lost) != numbers(added) and (numbers(lost) or numbers(added)):
                temporal = _is_temporal(ref, a0, a1) or _is_temporal(ext, b0, b1)
                findings.append(_Finding(MismatchType.TEMPORAL if temporal else MismatchType.NUMERIC,
                                         f"value '{lost_text}' became '{added_text}'"))
                continue
            if has_month(lost) != has_month(added) or (has_month(lost) and lost != added):
                findings.append(_Finding(MismatchType.TEMPORAL, f"date '{lost_text}' became '{added_text}'"))
                continue
            if modal_classes(lost) and modal_classes(added) and modal_classes(lost) != modal_classes(added):
                findings.append(_Finding(MismatchType.OBLIGATION, f"modal '{lost_text}' became '{added_text}'"))
                continue
        if lost and condition_markers(lost_text) and not condition_markers(added_text):
            findings.append(_Finding(MismatchType.MISSING_CONDITION, f"drops the condition '{lost_text}'"))
            continue
        if added and condition_markers(added_text) and not condition_markers(lost_text):
            findings.append(_Finding(MismatchType.EXTRA_CONDITION, f"adds the condition '{added_text}'"))
            continue
        if negation_count(lost) != negation_count(added):
            findings.append(_Finding(MismatchType.OBLIGATION,
                                     f"polarity differs: '{lost_text or '-'}' vs '{added_text or '-'}'"))
            continue
        if lost and not added and numbers(lost):
            temporal = _is_temporal(ref, a0, a1)
            findings.append(_Finding(MismatchType.TEMPORAL if temporal else MismatchType.NUMERIC,
                                     f"drops the value '{lost_text}'"))
            continue
        if added and not lost and numbers(added):
            temporal = _is_temporal(ext, b0, b1)
            findings.append(_Finding(MismatchType.TEMPORAL if temporal else MismatchType.NUMERIC,
                                     f"adds the value '{added_text}'"))
            continue
        if lost and added and not (numbers(lost) or numbers(added)) and len(lost) <= 3 and len(added) <= 3:
            findings.append(_Finding(MismatchType.OTHER, f"'{lost_text}' became '{added_text}'"))
    return findings


_PRIORITY = [MismatchType.NUMERIC, MismatchType.TEMPORAL, MismatchType.OBLIGATION, MismatchType.MISSING_CONDITION,
             MismatchType.EXTRA_CONDITION, MismatchType.SCOPE, MismatchType.OTHER]


def judge(clause_type: str, truth: tuple[str, ...] | list[str] | str, extracted: str) -> Verdict:
    """Judge one extraction against its ground truth; deterministic and side-effect free."""
    spans = (truth,) if isinstance(truth, str) else tuple(truth)
    ext = tokens(extracted)
    if not ext:
        return Verdict(verdict=VerdictLabel.CONTRADICTED, mismatch_type=MismatchType.SCOPE,
                       reason="the extraction is empty")
    ref = _reference(spans, ext)
    recall, precision = _overlap(ref, ext)
    if max(recall, precision) < MIN_OVERLAP:
        return Verdict(verdict=VerdictLabel.CONTRADICTED, mismatch_type=MismatchType.SCOPE,
                       reason=f"quotes a different passage (token recall {recall:.2f}, precision {precision:.2f})")
    findings = _classify(ref, ext)
    if not findings and (recall < MIN_RECALL or precision < MIN_PRECISION):
        findings.append(_Finding(MismatchType.SCOPE,
                                 f"covers the clause only in part (recall {recall:.2f}, precision {precision:.2f})"))
    if not findings:
        return Verdict(verdict=VerdictLabel.SUPPORTED, mismatch_type=MismatchType.NONE,
                       reason="numbers, dates, modality, polarity and conditions match the source")
    first = min(findings, key=lambda f: _PRIORITY.index(f.mismatch))
    return Verdict(verdict=VerdictLabel.CONTRADICTED, mismatch_type=first.mismatch, reason=first.reason[:300])
