"""`rubric`: a deterministic offline judge that reads legal force, under the five-criterion rubric.

Algorithm.

1. Both texts become canonical terms (`lexicon.canonical_terms`). Whatever does not change legal
   force is set aside there: formatting, case and quotes; cross-reference and list numbering; number
   words ("thirty (30) days" = "30 days"); plain-English equivalents of legalese ("prior to" =
   "before", "pursuant to" = "under", "hereunder" = "under this agreement"); articles ("the Company"
   = "Company"); the order of two coordinated words; and modal wording, reduced to its force class:
   obligation (shall, must, will, agrees to, is required to), permission (may, can, is permitted to,
   is entitled to, has the right to), prohibition (shall not, must not, may not, will not, cannot,
   or any modal under "no", "neither", "nor", "nothing") and no obligation (need not, is not
   required to).
2. The extraction is compared with the ground-truth span(s) it covers (every span at least half of
   whose content terms it contains, else the best-overlapping span). If the two barely overlap, the
   model quoted the wrong part of the contract: `scope`.
3. The term sequences are aligned (difflib) and each differing chunk is classified by the first
   criterion that fires:
   - numeric precision: a changed amount, percentage or count: `numeric`;
   - temporal precision: a changed date, a changed number of days/months/years, or before/after
     swapped: `temporal`;
   - modality: the force class changed (obligation vs permission): `obligation`;
   - polarity: a prohibition or negation present on one side only: `obligation`;
   - carve-out preservation: a condition marker (except, unless, provided, subject to, if, only,
     within, at least, at most, ...) in source text the extraction drops: `missing_condition`; one
     the extraction asserts that the source lacks: `extra_condition`;
   - quantifier scope: all/every/any on one side, some/certain/part on the other: `scope`;
   - a value dropped or added: `numeric` or `temporal`;
   - a short substitution of other words (a different party, object or right), or words moved to
     another place ("by Customer to Supplier" read as "by Supplier to Customer"): `other`.
4. Unmarked text the extraction leaves out or adds is tolerated unless it dominates (recall below
   0.6 or precision below 0.35): `scope`.

The finding of highest priority (numeric, temporal, obligation, missing_condition, extra_condition,
scope, other) decides; no finding means `supported`. The reason names the criterion that fired and
quotes the words involved. It is a baseline for offline runs and a calibration reference for LLM
judges, not a substitute for one: it knows only the equivalences listed in the lexicon, so a
paraphrase outside them reads as a change, and a change of meaning without a marker word can pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from lhl_platform.domain.models import MismatchType, Verdict, VerdictLabel
from lhl_platform.lexicon import (
    FORCE_CLASSES,
    MONTHS,
    NO_OBLIGATION,
    ORDER_AFTER,
    ORDER_BEFORE,
    PARTIAL,
    PROHIBITION,
    STOPWORDS,
    UNIVERSAL,
    Term,
    canonical_terms,
    condition_keys,
    is_temporal_number,
    polarity,
)

NAME = "rubric"
VERSION = "rubric-v2"
MIN_OVERLAP = 0.5
MIN_RECALL = 0.6
MIN_PRECISION = 0.35
MAX_SUBSTITUTION = 3  # a replaced chunk of at most this many terms per side is a substitution (`other`)

_FORCE_NAMES = {"[obligation]": "obligation", "[permission]": "permission", "[prohibition]": "prohibition",
                "[no-obligation]": "no obligation"}
_PRIORITY = [MismatchType.NUMERIC, MismatchType.TEMPORAL, MismatchType.OBLIGATION, MismatchType.MISSING_CONDITION,
             MismatchType.EXTRA_CONDITION, MismatchType.SCOPE, MismatchType.OTHER]


@dataclass(frozen=True)
class _Finding:
    mismatch: MismatchType
    reason: str


def _content(keys: list[str]) -> set[str]:
    return {k for k in keys if k not in STOPWORDS and k not in FORCE_CLASSES}


def content_overlap(reference: list[str], extracted: list[str]) -> tuple[float, float]:
    """(recall, precision) of the extraction's content terms against the reference's."""
    ref, ext = _content(reference), _content(extracted)
    common = len(ref & ext)
    return common / max(1, len(ref)), common / max(1, len(ext))


def covered_reference(spans: list[list[Term]], extracted: list[str]) -> list[Term]:
    """The ground-truth terms an extraction covers: every span at least half of whose content terms it contains,
    else the best-overlapping span."""
    ext = _content(extracted)
    keyed = [(terms, [t.key for t in terms]) for terms in spans if terms]
    chosen = [terms for terms, keys in keyed
              if _content(keys) and len(_content(keys) & ext) / len(_content(keys)) >= MIN_OVERLAP]
    if chosen:
        return [t for terms in chosen for t in terms]
    best = max(keyed, key=lambda tk: sum(content_overlap(tk[1], extracted)), default=None)
    return best[0] if best else []


def _words(terms: list[Term]) -> str:
    """The source words behind a run of terms (a phrase that became several terms is quoted once)."""
    out: list[str] = []
    for t in terms:
        if not out or out[-1] != t.surface:
            out.append(t.surface)
    return " ".join(out) or "-"


def _numbers(keys: list[str]) -> set[str]:
    return {k for k in keys if k[:1].isdigit() or (k[:1] == "$" and k[1:2].isdigit())}


def _temporal(keys: list[str], start: int, end: int) -> bool:
    return any(keys[i][:1].isdigit() and is_temporal_number(keys, i) for i in range(start, end))


def _months(keys: list[str]) -> set[str]:
    return {k for k in keys if k in MONTHS}


def _order(keys: list[str]) -> set[str]:
    return {"before" if k in ORDER_BEFORE else "after" for k in keys if k in ORDER_BEFORE | ORDER_AFTER}


def _force_name(keys: list[str]) -> str:
    return "/".join(_FORCE_NAMES[k] for k in dict.fromkeys(keys) if k in _FORCE_NAMES)


def _shifted_conditions(seq: list[str], start: int, end: int) -> list[str]:
    """Condition markers of a dropped or inserted run, wherever the alignment could have placed it.

    A run that begins with the word that follows it could equally have been cut one word later
    ("to the extent X, to" = "the extent X, to to"): the alignment picks one place, the reading
    should not depend on which."""
    found = list(condition_keys(seq[start:end]))
    left, right = start, end
    while left > 0 and seq[left - 1] == seq[right - 1]:
        left, right = left - 1, right - 1
        found += condition_keys(seq[left:right])
    left, right = start, end
    while right < len(seq) and seq[left] == seq[right]:
        left, right = left + 1, right + 1
        found += condition_keys(seq[left:right])
    return found


def _classify_chunk(ref: list[str], ext: list[str], a0: int, a1: int, b0: int, b1: int, lost_text: str,
                    added_text: str) -> _Finding | None:
    lost, added = ref[a0:a1], ext[b0:b1]
    quoted = f"'{lost_text}' became '{added_text}'"
    if lost and added:
        if _numbers(lost) != _numbers(added) and (_numbers(lost) or _numbers(added)):
            if _temporal(ref, a0, a1) or _temporal(ext, b0, b1):
                return _Finding(MismatchType.TEMPORAL, f"temporal precision: {quoted}")
            return _Finding(MismatchType.NUMERIC, f"numeric precision: {quoted}")
        if _months(lost) != _months(added):
            return _Finding(MismatchType.TEMPORAL, f"temporal precision: date {quoted}")
        if _order(lost) and _order(added):
            if _order(lost) != _order(added):
                return _Finding(MismatchType.TEMPORAL, f"temporal precision: order {quoted}")
            if all(k in ORDER_BEFORE | ORDER_AFTER for k in lost + added):
                return None  # "preceding" for "before": the same order in other words
        lost_force = [k for k in lost if k in FORCE_CLASSES]
        added_force = [k for k in added if k in FORCE_CLASSES]
        if lost_force and added_force and set(lost_force) != set(added_force):
            negative = {PROHIBITION, NO_OBLIGATION}
            criterion = "polarity" if bool(negative & set(lost_force)) != bool(negative & set(added_force)) \
                else "modality"
            return _Finding(MismatchType.OBLIGATION, f"{criterion}: '{lost_text}' ({_force_name(lost_force)}) became "
                                                     f"'{added_text}' ({_force_name(added_force)})")
    lost_conditions = _shifted_conditions(ref, a0, a1) if not added else condition_keys(lost)
    added_conditions = _shifted_conditions(ext, b0, b1) if not lost else condition_keys(added)
    if lost and lost_conditions and not added_conditions:
        return _Finding(MismatchType.MISSING_CONDITION, f"carve-out: drops the condition '{lost_text}'")
    if added and added_conditions and not lost_conditions:
        return _Finding(MismatchType.EXTRA_CONDITION, f"carve-out: adds the condition '{added_text}'")
    if polarity(lost) != polarity(added):
        return _Finding(MismatchType.OBLIGATION, f"polarity: '{lost_text}' vs '{added_text}'")
    if lost and added and (bool(PARTIAL & set(lost)) != bool(PARTIAL & set(added))) and (
            UNIVERSAL & set(lost) or UNIVERSAL & set(added)):
        return _Finding(MismatchType.SCOPE, f"quantifier scope: {quoted}")
    if lost and not added and _numbers(lost):
        kind = MismatchType.TEMPORAL if _temporal(ref, a0, a1) else MismatchType.NUMERIC
        return _Finding(kind, f"{kind.value} precision: drops the value '{lost_text}'")
    if added and not lost and _numbers(added):
        kind = MismatchType.TEMPORAL if _temporal(ext, b0, b1) else MismatchType.NUMERIC
        return _Finding(kind, f"{kind.value} precision: adds the value '{added_text}'")
    if lost and added and not (_numbers(lost) or _numbers(added)) and max(len(lost), len(added)) <= MAX_SUBSTITUTION:
        return _Finding(MismatchType.OTHER, f"substitution: {quoted}")
    return None


def _classify(ref_terms: list[Term], ext_terms: list[Term]) -> list[_Finding]:
    ref, ext = [t.key for t in ref_terms], [t.key for t in ext_terms]
    chunks = [c for c in SequenceMatcher(a=ref, b=ext, autojunk=False).get_opcodes() if c[0] != "equal"]
    findings: list[_Finding] = []
    # Words dropped in one place and inserted in another were moved: "notice by Customer to Supplier"
    # read as "notice by Supplier to Customer" changes who does what, whatever the words are.
    deleted = {i: sorted(ref[a0:a1]) for i, (op, a0, a1, _, _) in enumerate(chunks) if op == "delete"}
    moved: set[int] = set()
    for j, (op, _, _, b0, b1) in enumerate(chunks):
        if op != "insert":
            continue
        match = next((i for i, keys in deleted.items() if i not in moved and keys == sorted(ext[b0:b1])), None)
        if match is not None:
            moved |= {match, j}
            _, a0, a1, _, _ = chunks[match]
            findings.append(_Finding(MismatchType.OTHER, f"word order: '{_words(ref_terms[a0:a1])}' moved"))
    for n, (_, a0, a1, b0, b1) in enumerate(chunks):
        if n in moved:
            continue
        finding = _classify_chunk(ref, ext, a0, a1, b0, b1, _words(ref_terms[a0:a1]), _words(ext_terms[b0:b1]))
        if finding is not None:
            findings.append(finding)
    return findings


def judge(clause_type: str, truth: tuple[str, ...] | list[str] | str, extracted: str) -> Verdict:
    """Judge one extraction against its ground truth; deterministic and side-effect free."""
    spans = (truth,) if isinstance(truth, str) else tuple(truth)
    ext_terms = canonical_terms(extracted)
    ext = [t.key for t in ext_terms]
    if not ext:
        return Verdict(verdict=VerdictLabel.CONTRADICTED, mismatch_type=MismatchType.SCOPE,
                       reason="scope: the extraction is empty")
    ref_terms = covered_reference([canonical_terms(s) for s in spans if s.strip()], ext)
    recall, precision = content_overlap([t.key for t in ref_terms], ext)
    if max(recall, precision) < MIN_OVERLAP:
        return Verdict(verdict=VerdictLabel.CONTRADICTED, mismatch_type=MismatchType.SCOPE,
                       reason=f"scope: quotes a different passage (recall {recall:.2f}, precision {precision:.2f})")
    findings = _classify(ref_terms, ext_terms)
    if not findings and (recall < MIN_RECALL or precision < MIN_PRECISION):
        findings.append(_Finding(MismatchType.SCOPE, "scope: covers the clause only in part "
                                                     f"(recall {recall:.2f}, precision {precision:.2f})"))
    if not findings:
        return Verdict(verdict=VerdictLabel.SUPPORTED, mismatch_type=MismatchType.NONE,
                       reason="supported: numbers, dates, modality, polarity, conditions and quantifiers match the "
                              "source")
    first = min(findings, key=lambda f: _PRIORITY.index(f.mismatch))
    return Verdict(verdict=VerdictLabel.CONTRADICTED, mismatch_type=first.mismatch, reason=first.reason[:300])
