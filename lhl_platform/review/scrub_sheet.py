"""The ContractScrub review sheet: every injected edit of a gold version with its context, every defined term the
gold derives from the text (marked as derived: no edit of ours made it), and every finding of the audited models
that matched no gold (pooled across models and runs: one row per contract, category and normalised finding), with
a window of the text where it points. Other injected edits inside a row's context are marked apart from its own."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from lhl_platform.home import Home
from lhl_platform.review.locate import locate
from lhl_platform.review.refs import ref_of
from lhl_platform.review.rows import ReviewRow, Span, marks_in
from lhl_platform.scrub.document import ParsedContract, parse_contract
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


def _term(g: Finding) -> str:
    return g.term or (f"{g.wrong} (should be {g.correct})" if g.wrong else "")


def _location(g: Finding) -> str:
    return " / ".join(str(w) for w in (g.location, g.location_2) if w)


def _edits(item: ScrubItem) -> list[Span]:
    return [(g.edit.start, g.edit.end) for g in item.gold if g.edit is not None]


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


def term_refs(item_set: str, item: ScrubItem) -> list[tuple[str, GoldFinding]]:
    """Each derived defined term of an item with its ref: the term, its location and which of the identical
    tuples it is (a term defined twice in one section is two things)."""
    seen: Counter[tuple[str, str]] = Counter()
    out = []
    for g in item.gold:
        if g.category == "defined_terms" and g.edit is None:
            key = (str(g.term), str(g.location))
            out.append((ref_of("contractscrub", item_set, item.contract_id, "term", *key, seen[key]), g))
            seen[key] += 1
    return out


def finding_ref(item_set: str, contract_id: str, f: Finding) -> str:
    return ref_of("contractscrub", item_set, contract_id, "finding", f.category, finding_key(f))


def _context(item: ScrubItem, start: int, end: int, own: Span | None) -> dict[str, object]:
    """The text around [start, end) and the other injected edits inside it (the row's own edit left out)."""
    lo, hi = max(0, start - CONTEXT), end + CONTEXT
    others = [span for span in _edits(item) if span != own]
    return {"before": item.text[lo:start], "after": item.text[end:hi],
            "before_marks": marks_in((lo, start), others), "after_marks": marks_in((end, hi), others)}


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
            rows.append(ReviewRow(ref=ref, suite="contractscrub", item_set=item_set, gold_version=version,
                                  item_id=item.contract_id, kind="edit", category=g.category, term=_term(g),
                                  location=_location(g), removed=g.edit.original, inserted=item.text[s:e],
                                  gold=_gold_text(g), **_context(item, s, e, (s, e))))
    return rows


def _shown(item: ScrubItem, parsed: ParsedContract, f: Finding) -> dict[str, object]:
    """A finding's or a term's window: its string inside the location it names (`lhl_platform.review.locate`)."""
    found = locate(parsed, (f.wrong, f.term), (f.location, f.location_2))
    if found is None:
        return {"after": item.text[:2 * CONTEXT], "shown_at": "its string is not in the text: the start of the "
                                                              "contract shown"}
    start, end, where = found
    return {"inserted": item.text[start:end], "shown_at": where, **_context(item, start, end, None)}


def term_rows(item_set: str, version: int, items: Sequence[ScrubItem]) -> list[ReviewRow]:
    rows = []
    for item in items:
        terms = term_refs(item_set, item)
        parsed = parse_contract(item.text) if terms else None
        for ref, g in terms:
            assert parsed is not None
            rows.append(ReviewRow(ref=ref, suite="contractscrub", item_set=item_set, gold_version=version,
                                  item_id=item.contract_id, kind="term", category=g.category, term=_term(g),
                                  location=_location(g), gold=f"derived from the text: {_gold_text(g)}",
                                  **_shown(item, parsed, g)))
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


def finding_rows(item_set: str, version: int, items: Sequence[ScrubItem],
                 calls: dict[CallKey, Answer]) -> list[ReviewRow]:
    by_id = {item.contract_id: item for item in items}
    parsed: dict[str, ParsedContract] = {}
    rows = []
    for (contract, _), (f, models) in sorted(unmatched(items, calls).items()):
        if contract not in parsed:
            parsed[contract] = parse_contract(by_id[contract].text)
        rows.append(ReviewRow(ref=finding_ref(item_set, contract, f), suite="contractscrub", item_set=item_set,
                              gold_version=version, item_id=contract, kind="finding", category=f.category,
                              term=_term(f), location=_location(f), gold=_gold_text(f),
                              found_by=tuple(sorted(models)),
                              **_shown(by_id[contract], parsed[contract], f)))
    return rows


def scrub_rows(home: Home, item_set: str, version: int, items: Sequence[ScrubItem]) -> tuple[list[ReviewRow],
                                                                                            dict[str, Finding]]:
    """The sheet's rows, and each finding row's representative finding by ref (what `pre_existing` adds)."""
    calls = answered_calls(home, item_set)
    findings = {finding_ref(item_set, c, f): f for (c, _), (f, _) in unmatched(items, calls).items()}
    return (edit_rows(item_set, version, items) + term_rows(item_set, version, items)
            + finding_rows(item_set, version, items, calls)), findings
