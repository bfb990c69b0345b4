"""LexFlip's source table (`lhl_platform.warehouse.sources`): the held-out sets shipped now, which the
`judge_validations` mart gates on (a judge is validated only by a result that passed every one of them)."""

from __future__ import annotations

from lhl_platform.warehouse.sources import SourceTable


def _shipped() -> list[tuple[str, str]]:
    from lhl_platform.lexflip.heldout import shipped_sets

    return shipped_sets()


HELDOUT_SETS = SourceTable("heldout_sets", "set varchar, sha256 varchar", rows=_shipped)

SOURCES = (HELDOUT_SETS,)
