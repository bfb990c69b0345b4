"""The InsufficiencyBench review sheet: every base query kept in a gold version (a reviewer confirms it is
complete), every variant kept beside its base query (the removed text highlighted), and each of its required
missing elements (its gold) with the reference explanation."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from lhl_platform.insufficiency.items import Item
from lhl_platform.review.refs import ref_of
from lhl_platform.review.rows import ReviewRow
from lhl_platform.review.versions import GoldItem


def base_ref(item_set: str, base: Item) -> str:
    return ref_of("insufficiency", item_set, base.item_id, "base", base.query)


def variant_ref(item_set: str, variant: Item, base: Item | None) -> str:
    return ref_of("insufficiency", item_set, variant.item_id, "variant", variant.query, base.query if base else "")


def element_ref(item_set: str, variant: Item, sub_tag: str) -> str:
    element = next(e for e in variant.missing_elements if e.sub_tag == sub_tag)
    return ref_of("insufficiency", item_set, variant.item_id, "element", element.sub_tag, element.category,
                  element.explanation)


def _change(base: str, variant: str) -> tuple[str, str, str, str]:
    """The base query split around what the variant changed, word by word: (before, removed, inserted, after);
    several separate changes are shown as one span from the first to the last."""
    a, b = re.findall(r"\S+|\s+", base), re.findall(r"\S+|\s+", variant)
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not ops:
        return base, "", "", ""
    b0, b1, v0, v1 = ops[0][1], ops[-1][2], ops[0][3], ops[-1][4]
    return "".join(a[:b0]), "".join(a[b0:b1]), "".join(b[v0:v1]), "".join(a[b1:])


def insufficiency_rows(item_set: str, version: int, items: Sequence[GoldItem]) -> list[ReviewRow]:
    bases = {g.item.item_id: g.item for g in items if g.item.kind == "base"}
    rows: list[ReviewRow] = []
    for g in items:
        v = g.item
        if v.kind == "base" and g.kept:
            rows.append(ReviewRow(ref=base_ref(item_set, v), suite="insufficiency", item_set=item_set,
                                  gold_version=version, item_id=v.item_id, kind="base", category="complete",
                                  location=v.jurisdiction, before=v.query, trim=False,
                                  gold="complete: nothing legally material is missing"))
        if v.kind != "variant" or not g.kept:
            continue
        base = bases.get(v.base_id)
        required = [e for e in v.missing_elements if e.required]
        gold = "; ".join(f"{e.sub_tag} ({e.category})" for e in required)
        before, removed, inserted, after = _change(base.query if base else "", v.query)
        categories = ",".join(sorted({str(e.category) for e in required}))
        rows.append(ReviewRow(ref=variant_ref(item_set, v, base), suite="insufficiency", item_set=item_set,
                              gold_version=version, item_id=v.item_id, kind="variant", category=categories,
                              term=", ".join(e.sub_tag for e in required), location=v.jurisdiction,
                              before=before, removed=removed, inserted=inserted, after=after, trim=False,
                              gold=f"missing (required): {gold}"))
        for e in required:
            rows.append(ReviewRow(ref=element_ref(item_set, v, e.sub_tag), suite="insufficiency", item_set=item_set,
                                  gold_version=version, item_id=v.item_id, kind="element", category=str(e.category),
                                  term=e.sub_tag, location=v.jurisdiction, before=v.query, trim=False,
                                  gold=f"{e.sub_tag}: {e.explanation}"))
    return rows
