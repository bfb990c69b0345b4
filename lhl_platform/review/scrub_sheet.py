"""The ContractScrub review sheet: every injected edit of a gold version with its context, and every finding of
the audited models that matched no gold (pooled across models and runs: one row per contract, category and
normalised finding), with a window of the text where it points."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from lhl_platform.home import Home
from lhl_platform.review.refs import ref_of
from lhl_platform.review.rows import ReviewRow
from lhl_platform.scrub.events import ScrubEventType, ScrubFindingsImported, ScrubFindingsRecorded
from lhl_platform.scrub.items import Finding, GoldFinding, ScrubItem
from lhl_platform.scrub.normalize import finding_key
from lhl_platform.scrub.versions import Answer, CallKey

CONTEXT = 300  # characters shown either side of a change or a finding


def answered_calls(home: Home, item_set: str) -> dict[CallKey, Answer]:
    """Every answered call of the set, recorded or imported, the latest per (model, run, contract, category), as
    the suite's scores take them."""
    wanted = {ScrubEventType.FINDINGS_RECORDED, ScrubEventType.FINDINGS_IMPORTED}
    found: list[tuple[str, int, ScrubFindingsRecorded | ScrubFindingsImported]] = []
    for stream in home.events.streams():
        if not stream.startswith("scrub."):
            continue
        for e in home.events.read(stream):
            if e.type in wanted:
                p = e.data()
                assert isinstance(p, ScrubFindingsRecorded | ScrubFindingsImported)
                if p.item_set == item_set:
                    found.append((e.time, e.seq, p))
    out: dict[CallKey, Answer] = {}
    for _, _, p in sorted(found, key=lambda t: (t[0], t[1])):
        if isinstance(p, ScrubFindingsRecorded):
            out[(p.model, p.run, p.contract_id, p.category)] = (p.findings, p.request_key, "recorded")
        else:
            out[(p.model, p.run, p.contract_id, p.category)] = (p.findings, f"{p.file_sha256}:{p.line}", "imported")
    return out


def _gold_text(g: Finding) -> str:
    return ", ".join(f"{k}: {v}" for k, v in g.fields().items())


def source_offset(item: ScrubItem, g: GoldFinding) -> int:
    """Where an edit sits in the source contract: its offset in the item's text less what the edits before it
    added. Undoing another edit (a later gold version) leaves it unchanged, and two edits never share it."""
    assert g.edit is not None
    at = g.edit.start
    return at - sum((o.edit.end - o.edit.start) - len(o.edit.original)
                    for o in item.gold if o.edit is not None and o.edit.end <= at and o is not g)


def edit_ref(item_set: str, item: ScrubItem, g: GoldFinding) -> str:
    """An edit's ref: its content and where it sits in the source contract, so two edits of the same words (two
    `uncapitalized_defined_terms` of one term, say) are two refs, and every export of every gold version that
    keeps the edit gives the same one."""
    assert g.edit is not None
    return ref_of("contractscrub", item_set, item.contract_id, "edit", g.category, g.fields(), g.edit.original,
                  item.text[g.edit.start:g.edit.end], source_offset(item, g))


def finding_ref(item_set: str, contract_id: str, f: Finding) -> str:
    return ref_of("contractscrub", item_set, contract_id, "finding", f.category, finding_key(f))


def edit_rows(item_set: str, version: int, items: Sequence[ScrubItem]) -> list[ReviewRow]:
    rows, seen = [], set()
    for item in items:
        for g in sorted((g for g in item.gold if g.edit is not None), key=lambda g: g.edit.start if g.edit else 0):
            assert g.edit is not None
            ref = edit_ref(item_set, item, g)
            if ref in seen:  # the same tuple of the same edit at the same place: one thing, one row, one decision
                continue
            seen.add(ref)
            s, e = g.edit.start, g.edit.end
            rows.append(ReviewRow(ref=ref, suite="contractscrub", item_set=item_set,
                                  gold_version=version, item_id=item.contract_id, kind="edit", category=g.category,
                                  before=item.text[max(0, s - CONTEXT):s], removed=g.edit.original,
                                  inserted=item.text[s:e], after=item.text[e:e + CONTEXT], gold=_gold_text(g)))
    return rows


def unmatched(items: Sequence[ScrubItem], calls: dict[CallKey, Answer]) -> dict[tuple[str, str], tuple[Finding,
                                                                                                     set[str]]]:
    """Per (contract, finding ref): a representative finding that matched no gold, and the models reporting it."""
    gold: dict[tuple[str, str], list[tuple[str, ...]]] = {}
    for item in items:
        for g in item.gold:
            gold.setdefault((item.contract_id, g.category), []).append(finding_key(g))
    out: dict[tuple[str, str], tuple[Finding, set[str]]] = {}
    for (model, _, contract, category), (findings, _, _) in sorted(calls.items()):
        left = Counter(gold.get((contract, category), []))
        for f in findings:
            key = finding_key(f)
            if left[key] > 0:
                left[key] -= 1
                continue
            entry = out.setdefault((contract, f"{category}\x00{'|'.join(key)}"), (f, set()))
            entry[1].add(model)
    return out


def _window(text: str, f: Finding) -> tuple[str, str, str]:
    """Where in the text a finding points: its term (or wrong word) at its first occurrence, else the start."""
    for needle in (f.wrong, f.term):
        if needle:
            at = text.find(needle)
            if at < 0:
                at = text.lower().find(needle.lower())
            if at >= 0:
                end = at + len(needle)
                return text[max(0, at - CONTEXT):at], text[at:end], text[end:end + CONTEXT]
    return "", "", text[:2 * CONTEXT]


def finding_rows(item_set: str, version: int, items: Sequence[ScrubItem],
                 calls: dict[CallKey, Answer]) -> list[ReviewRow]:
    texts = {item.contract_id: item.text for item in items}
    rows = []
    for (contract, _), (f, models) in sorted(unmatched(items, calls).items()):
        before, hit, after = _window(texts[contract], f)
        rows.append(ReviewRow(ref=finding_ref(item_set, contract, f), suite="contractscrub", item_set=item_set,
                              gold_version=version, item_id=contract, kind="finding", category=f.category,
                              before=before, inserted=hit, after=after, gold=_gold_text(f),
                              found_by=tuple(sorted(models))))
    return rows


def scrub_rows(home: Home, item_set: str, version: int, items: Sequence[ScrubItem]) -> tuple[list[ReviewRow],
                                                                                            dict[str, Finding]]:
    """The sheet's rows, and each finding row's representative finding by ref (what `pre_existing` adds)."""
    calls = answered_calls(home, item_set)
    findings = {finding_ref(item_set, c, f): f for (c, _), (f, _) in unmatched(items, calls).items()}
    return edit_rows(item_set, version, items) + finding_rows(item_set, version, items, calls), findings
