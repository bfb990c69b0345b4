"""An InsufficiencyBench gold version from the decisions applied to the one before: a base query found
`incomplete` leaves the gold with every variant of it (a variant's missing elements are its gold only if its base
lacks nothing else); a rejected variant leaves the gold (its responses are no longer scored, nor expected); an
element marked `not_required` is no longer gold (it becomes a non-required element: naming it is no hit, leaving it
out no miss). A variant left without a required element leaves the gold as well."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lhl_platform.review.events import InsufficiencyGoldAtVersion
from lhl_platform.review.insufficiency_sheet import base_ref, element_ref, variant_ref
from lhl_platform.review.versions import GoldItem


def apply(item_set: str, items: Sequence[GoldItem], changes: Mapping[str, str]) -> tuple[GoldItem, ...]:
    bases = {g.item.item_id: g.item for g in items if g.item.kind == "base"}
    incomplete = {b for b, base in bases.items() if changes.get(base_ref(item_set, base)) == "incomplete"}
    out = []
    for g in items:
        item, kept = g.item, g.kept and g.item.base_id not in incomplete
        if item.kind == "variant" and kept:
            if changes.get(variant_ref(item_set, item, bases.get(item.base_id))) == "reject":
                kept = False
            elements = tuple(e.model_copy(update={"required": False})
                             if e.required and changes.get(element_ref(item_set, item, e.sub_tag)) == "not_required"
                             else e for e in item.missing_elements)
            item = item.model_copy(update={"missing_elements": elements})
            kept = kept and any(e.required for e in elements)
        out.append(GoldItem(item, kept))
    return tuple(out)


def items_at(item_set: str, version: int, items: Sequence[GoldItem]) -> list[InsufficiencyGoldAtVersion]:
    return [InsufficiencyGoldAtVersion(item_set_id=item_set, gold_version=version, item_id=g.item.item_id,
                                       kind=g.item.kind.value, kept=g.kept, missing_elements=g.item.missing_elements)
            for g in items]
