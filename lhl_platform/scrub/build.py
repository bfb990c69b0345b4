"""Build a ContractScrub item set from a corpus by seeded defect injection (`lhl scrub build`).

1. **Eligible contracts.** Each contract is parsed (`document`); it is eligible when its length is within
   the configured window and it has enough numbered sections, defined terms, resolved cross-references and
   parties to host every kind of defect (`BuildConfig`).
2. **Selection.** The eligible contracts, in contract-id order, are shuffled with the seed; they are tried in
   that order until `n` items are built. A contract that takes fewer than `min_categories` error
   categories is skipped (and the report says so).
3. **Injection and verification.** Candidates of each category come from `inject` in an order seeded by
   (seed, contract); the first ones at least `MIN_GAP` (150) characters from every accepted edit are taken up to
   the contract's targets, the item is assembled and verified (`verify`), rejected edits are dropped and replaced by
   the next candidates, for up to `rounds` rounds; a last verification leaves only edits that hold.
4. **Gold.** Each kept edit's gold tuple, with its edit and (section references) its distance measured in the
   finished text, and the `defined_terms` gold derived from the finished text by the definition parser.

Everything depends only on (corpus, n, seed, config, versions): the same inputs export the same bytes.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lhl_platform.domain.models import Contract
from lhl_platform.scrub.categories import CATEGORY_KEYS, CategoryKey
from lhl_platform.scrub.document import ParsedContract, parse_contract
from lhl_platform.scrub.inject import INJECTOR_VERSION, MIN_GAP, Injection, apply, candidates, targets
from lhl_platform.scrub.items import Edit, GoldFinding, ScrubItem, Source
from lhl_platform.scrub.parties import AnnotatedParties
from lhl_platform.scrub.records import BuildConfig, SkippedContract, VerifierReport  # payload fields: with the events
from lhl_platform.scrub.style import drafting_style
from lhl_platform.scrub.verify import VERIFIER_VERSION, Rejection, report, verify_item

BUILDER_VERSION = f"scrub-build-v3+{INJECTOR_VERSION}+{VERIFIER_VERSION}"
# Which contracts a seed picks is drawn as builder v2 drew it: a later injector or verifier changes the items, not the
# choice of contracts, so two versions' sets of one seed compare contract by contract.
SELECTION_KEY = "scrub-build-v2+scrub-inject-v2+scrub-verify-v1"
# How a built set must be labelled wherever it is reported.
PROVENANCE = ("self-built: drafting defects injected into the source contracts by lhl_platform.scrub (not "
              "annotated by lawyers); the defined_terms gold is derived by its definition parser")


CUAD_CONFIG = BuildConfig()
# The demo corpus's contracts are one or two pages long: smaller structures qualify.
DEMO_CONFIG = BuildConfig(min_chars=1_000, max_chars=20_000, min_sections=8, min_terms=2, min_resolved_references=0,
                          min_categories=3)


class BuildError(ValueError):
    """A set that cannot be built as asked (too few eligible contracts); the message says why."""


@dataclass(frozen=True)
class BuiltSet:
    """A built item set: the items, how they were made, and what the verifier said."""

    items: tuple[ScrubItem, ...]
    seed: int
    corpus: str
    config: BuildConfig
    report: VerifierReport
    eligible: int
    skipped: tuple[SkippedContract, ...]
    targeted: dict[CategoryKey, int]  # what the kept items aimed for, per error category (kept: report.kept)
    builder_version: str = BUILDER_VERSION


def eligibility(doc: ParsedContract, config: BuildConfig) -> str | None:
    """Why a parsed contract cannot host the defects, or None when it can."""
    length = len(doc.text)
    if not config.min_chars <= length <= config.max_chars:
        return f"{length:,} characters, outside {config.min_chars:,}-{config.max_chars:,}"
    if len(doc.sections) < config.min_sections:
        return f"{len(doc.sections)} numbered sections (fewer than {config.min_sections})"
    if len(doc.terms) < config.min_terms:
        return f"{len(doc.terms)} defined terms (fewer than {config.min_terms})"
    resolved = sum(r.target is not None for r in doc.references)
    if resolved < config.min_resolved_references:
        return f"{resolved} resolved cross-references (fewer than {config.min_resolved_references})"
    if len(doc.parties) < config.min_parties:
        return f"{len(doc.parties)} parties found (fewer than {config.min_parties})"
    return None


def _assemble(contract: Contract, corpus: str, accepted: list[Injection]) -> ScrubItem:
    text, placed = apply(contract.text, accepted)
    doc = parse_contract(text)
    gold = [GoldFinding(category="defined_terms", term=d.term, location=d.location) for d in doc.definitions]
    for inj, start, end in placed:
        distance = None
        if inj.category == "incorrect_section_references":
            target = doc.resolve(inj.fields["correct"], "Article" if inj.replacement.isalpha() else "Section")
            distance = abs(target.start - start) if target is not None else inj.distance
        gold.append(GoldFinding(category=inj.category, edit=Edit(start=start, end=end,
                                                                  original=contract.text[inj.start:inj.end]),
                                distance=distance, **inj.fields))
    order = {k: i for i, k in enumerate(CATEGORY_KEYS)}
    gold.sort(key=lambda g: (order[g.category], g.edit.start if g.edit else 0))
    return ScrubItem(contract_id=contract.contract_id, text=text, gold=tuple(gold),
                     source=Source(corpus=corpus, contract_id=contract.contract_id, sha256=contract.sha256))


def contract_targets(contract: Contract, seed: int) -> dict[CategoryKey, int]:
    """How many defects of each error category the build aims for in this contract."""
    return targets(len(contract.text), random.Random(f"{BUILDER_VERSION}|{seed}|{contract.contract_id}|targets"))


def inject_contract(contract: Contract, corpus: str, seed: int, config: BuildConfig,
                    doc: ParsedContract | None = None,
                    parties: AnnotatedParties | None = None) -> tuple[ScrubItem, list[Rejection]]:
    """One contract's item: injected, verified, and the rejections met on the way (`parties`: the corpus's
    annotation of the contract's parties, which tells which names are one party)."""
    doc = doc or parse_contract(contract.text)
    key = f"{BUILDER_VERSION}|{seed}|{contract.contract_id}"
    wanted = contract_targets(contract, seed)
    pools = candidates(doc, drafting_style(contract.text), key, parties)
    accepted: list[Injection] = []
    rejections: list[Rejection] = []
    item = _assemble(contract, corpus, accepted)
    for _ in range(config.rounds):
        for category, pool in pools.items():
            while sum(i.category == category for i in accepted) < wanted[category]:
                candidate = next(pool, None)
                if candidate is None:
                    break
                taken = candidate.subject is not None and any(a.subject == candidate.subject for a in accepted)
                if not taken and not any(candidate.overlaps(a, margin=MIN_GAP) for a in accepted):
                    accepted.append(candidate)
        item = _assemble(contract, corpus, accepted)
        found = verify_item(item, contract.text)
        if not found:
            return item, rejections
        rejections += found
        accepted = _without_rejected(contract, corpus, item, accepted, found)
    item = _assemble(contract, corpus, accepted)
    while found := verify_item(item, contract.text):  # the last round's replacements are checked too
        rejections += found
        accepted = _without_rejected(contract, corpus, item, accepted, found)
        item = _assemble(contract, corpus, accepted)
    return item, rejections


def _without_rejected(contract: Contract, corpus: str, item: ScrubItem, accepted: list[Injection],
                      found: list[Rejection]) -> list[Injection]:
    """The accepted injections minus the rejected ones. A problem of the whole item (a changed structure, say)
    is traced to the injections that cause it on their own; when none does alone, all are dropped."""
    if any(r.gold_index is None for r in found):
        culprits = [a for a in accepted
                    if any(r.gold_index is None for r in verify_item(_assemble(contract, corpus, [a]), contract.text))]
        return [a for a in accepted if a not in culprits] if culprits else []
    bad_starts = set()
    for r in found:
        gold = item.gold[r.gold_index or 0]
        if gold.edit is not None:
            bad_starts.add(gold.edit.start)
    _, placed = apply(contract.text, accepted)
    return [inj for inj, start, _ in placed if start not in bad_starts]


def build_items(contracts: Sequence[Contract], n: int, seed: int, *, corpus: str,
                config: BuildConfig = CUAD_CONFIG, parties: Mapping[str, AnnotatedParties] | None = None) -> BuiltSet:
    """`n` items from `contracts` (a stored corpus), reproducible to the byte for the same inputs. `parties`:
    each contract's annotated parties (CUAD's Parties column, `parties.annotated_parties`), when the corpus has them."""
    if n < 1:
        raise BuildError(f"--contracts must be at least 1, got {n}")
    skipped: list[SkippedContract] = []
    eligible: list[tuple[Contract, ParsedContract]] = []
    for contract in sorted(contracts, key=lambda c: c.contract_id):
        doc = parse_contract(contract.text)
        reason = eligibility(doc, config)
        if reason is None:
            eligible.append((contract, doc))
    if len(eligible) < n:
        raise BuildError(f"only {len(eligible)} of {len(contracts)} contracts can host every kind of defect; "
                         f"ask for at most {len(eligible)}")
    random.Random(f"{SELECTION_KEY}|{seed}|selection").shuffle(eligible)
    items: list[ScrubItem] = []
    rejections: list[Rejection] = []
    targeted: dict[CategoryKey, int] = {k: 0 for k in CATEGORY_KEYS if k != "defined_terms"}
    for contract, doc in eligible:
        if len(items) == n:
            break
        item, rejected = inject_contract(contract, corpus, seed, config, doc, (parties or {}).get(contract.contract_id))
        rejections += rejected
        held = {g.category for g in item.gold if g.edit is not None}
        if len(held) < config.min_categories:
            skipped.append(SkippedContract(contract_id=contract.contract_id,
                                           reason=f"holds {len(held)} error categories (fewer than "
                                                  f"{config.min_categories})"))
            continue
        items.append(item)
        for category, count in contract_targets(contract, seed).items():
            targeted[category] += count
    if len(items) < n:
        raise BuildError(f"only {len(items)} of the {len(eligible)} eligible contracts took enough defects; "
                         f"ask for at most {len(items)}")
    items.sort(key=lambda i: i.contract_id)
    return BuiltSet(items=tuple(items), seed=seed, corpus=corpus, config=config, report=report(items, rejections),
                    eligible=len(eligible), skipped=tuple(skipped), targeted=targeted)
