"""Named, stored contract subsets, drawn reproducibly (seeded, optionally stratified)."""

from __future__ import annotations

import random
from collections import defaultdict

from lhl_platform.corpus.cuad import Corpus
from lhl_platform.domain.models import Subset
from lhl_platform.events.payloads import EventType
from lhl_platform.home import Home

SUBSET_STREAM = "subsets"


def draw_subset(corpus: Corpus, name: str, size: int, seed: int = 0, stratify_by_category: str | None = None) -> Subset:
    """Draw `size` contracts. With `stratify_by_category`, contracts holding that category's clauses
    and contracts without are drawn in proportion to their share of the corpus."""
    ids = sorted(c.contract_id for c in corpus.contracts)
    if not 0 < size <= len(ids):
        raise ValueError(f"subset size must be between 1 and {len(ids)}, got {size}")
    rng = random.Random(seed)
    if stratify_by_category is None:
        chosen = rng.sample(ids, size)
    else:
        strata: dict[bool, list[str]] = defaultdict(list)
        holders = {r.contract_id for r in corpus.oracle if r.present and r.category == stratify_by_category}
        for cid in ids:
            strata[cid in holders].append(cid)
        chosen = []
        for _flag, members in sorted(strata.items()):
            take = round(size * len(members) / len(ids))
            chosen += rng.sample(members, min(take, len(members)))
        rest = [c for c in ids if c not in set(chosen)]
        chosen += rng.sample(rest, size - len(chosen)) if len(chosen) < size else []
        chosen = chosen[:size]
    return Subset(name=name, contract_ids=tuple(sorted(chosen)), seed=seed, stratified_by=stratify_by_category)


def listed_subset(home: Home, name: str, contract_ids: list[str]) -> Subset:
    """A subset given as a list; every id must belong to the active corpus (or to imported outcomes)."""
    from lhl_platform.corpus.store import ingested_corpora, load_corpus

    if ingested_corpora(home):
        known = {c.contract_id for c in load_corpus(home).contracts}
        unknown = [cid for cid in contract_ids if cid not in known]
        if unknown:
            raise LookupError(f"{len(unknown)} listed contract(s) are not in the active corpus, e.g. {unknown[0]!r}")
    return Subset(name=name, contract_ids=tuple(sorted(contract_ids)))


def save_subset(home: Home, subset: Subset) -> bool:
    """Record a new subset; False when the same subset is recorded already (creating it again is a no-op)."""
    existing = stored_subsets(home).get(subset.name)
    if existing == subset:
        return False
    if existing is not None:
        raise ValueError(f"subset {subset.name!r} already exists with other contracts; subsets are immutable, "
                         "choose another name")
    return home.events.append(SUBSET_STREAM, EventType.SUBSET_CREATED, subset.name, f"subset:{subset.name}",
                       subset)


def stored_subsets(home: Home) -> dict[str, Subset]:
    return {e.subject: e.data_as(Subset) for e in home.events.read(SUBSET_STREAM)}


def get_subset(home: Home, name: str) -> Subset:
    found = stored_subsets(home).get(name)
    if found is None:
        raise LookupError(f"no subset named {name!r}; create it with `lhl subset create`")
    return found
