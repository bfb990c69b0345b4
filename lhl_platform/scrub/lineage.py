"""ContractScrub's gold versions asset (`scrub_gold_versions`, `lhl_platform.suites.gold_lineage`): the active
item set's versions, each digested from its items' text and gold as that version stands."""

from __future__ import annotations

from lhl_platform.scrub.events import ScrubItemsBuilt
from lhl_platform.scrub.store import load_set
from lhl_platform.scrub.versions import SCRUB_ITEM, items_at_version
from lhl_platform.suites.contract import StageContext, StageResult
from lhl_platform.suites.gold_lineage import REVIEW_FEEDS, gold_result, review_stream, version_lines
from lhl_platform.suites.gold_lineage import digest as digest_of

FEEDS = (*REVIEW_FEEDS, SCRUB_ITEM)


def scrub_gold_versions(ctx: StageContext) -> StageResult:
    stored = load_set(ctx.home)
    summary = stored.summary
    first = (f"built from corpus {summary.corpus}, seed {summary.seed}" if isinstance(summary, ScrubItemsBuilt)
             else f"ingested from {summary.file_name}")

    def digest_at(version: int) -> str:
        items = items_at_version(ctx.home, stored.item_set, stored.items, version)
        return digest_of([[i.contract_id, i.text, [g.model_dump(mode="json") for g in i.gold]] for i in items])

    lines = version_lines(review_stream(ctx.home), "contractscrub", stored.item_set, first, digest_at)
    ctx.log(f"item set {stored.item_set}: gold versions 1 to {lines[-1].version}")
    return gold_result("contractscrub", stored.item_set, lines)
