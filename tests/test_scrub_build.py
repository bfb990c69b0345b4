"""Building ContractScrub items by seeded injection: from the bundled demo corpus (always) and from 44 CUAD
contracts as the paper did (when CUAD v1 is present). Every kept defect holds (the verifier passes the set),
the set holds every category, is reproducible to the byte for a seed, and round-trips through the release
format and through its `scrub.items_built` event."""

import time
from collections import Counter

import pytest

from lhl_platform.corpus.cuad import load_master_layout
from lhl_platform.corpus.demo import load_demo_corpus
from lhl_platform.scrub.build import DEMO_CONFIG, PROVENANCE, BuildError, build_items
from lhl_platform.scrub.categories import CATEGORIES, CATEGORY_KEYS, ERROR_CATEGORIES
from lhl_platform.scrub.document import parse_contract
from lhl_platform.scrub.events import RebuildError, ScrubItemsBuilt, items_built, rebuild_items
from lhl_platform.scrub.items import export_items, parse_items, undo_edits
from lhl_platform.scrub.verify import LONG_DISTANCE, verify_item
from tests.conftest import CUAD_DIR


def sources(corpus):
    return {c.contract_id: c.text for c in corpus.contracts}


@pytest.fixture(scope="module")
def demo():
    return load_demo_corpus()


@pytest.fixture(scope="module")
def demo_set(demo):
    return build_items(demo.contracts, 4, seed=0, corpus="demo", config=DEMO_CONFIG)


def test_a_few_demo_contracts_give_a_usable_item_set(demo, demo_set):
    assert len(demo_set.items) == 4
    held = Counter(g.category for item in demo_set.items for g in item.gold)
    # The demo contracts are one or two pages and define little, so their set is small, but it holds the defined
    # terms and at least seven of the eight error categories (none of the twelve has a defined term in a context
    # meaning something else, which incorrectly_capitalized_terms needs).
    assert held["defined_terms"] >= 10 and sum(held[c.key] > 0 for c in ERROR_CATEGORIES) >= 7
    for item in demo_set.items:
        assert verify_item(item, sources(demo)[item.contract_id]) == []
        assert undo_edits(item) == sources(demo)[item.contract_id]
    assert demo_set.eligible >= 4


def test_the_demo_set_is_reproducible_and_depends_on_the_seed(demo, demo_set):
    again = build_items(demo.contracts, 4, seed=0, corpus="demo", config=DEMO_CONFIG)
    assert export_items(again.items) == export_items(demo_set.items)
    other = build_items(demo.contracts, 4, seed=1, corpus="demo", config=DEMO_CONFIG)
    assert export_items(other.items) != export_items(demo_set.items)


def test_asking_for_more_items_than_contracts_can_host_is_one_clear_error(demo):
    with pytest.raises(BuildError, match=r"only \d+ of 12 contracts can host every kind of defect; ask for at most"):
        build_items(demo.contracts, 12, seed=0, corpus="demo", config=DEMO_CONFIG)


def test_the_defined_terms_gold_is_derived_by_the_parser(demo_set):
    for item in demo_set.items:
        derived = [(d.term, d.location) for d in parse_contract(item.text).definitions]
        assert [(g.term, g.location) for g in item.gold if g.category == "defined_terms"] == derived
        assert all(g.edit is None for g in item.gold if g.category == "defined_terms")
        assert all(g.edit is not None for g in item.gold if g.category != "defined_terms")


def test_the_built_event_rebuilds_the_set_from_the_source_contracts(demo, demo_set):
    event = items_built(demo_set, requested=4)
    assert event.provenance == PROVENANCE and "self-built" in event.provenance
    assert ScrubItemsBuilt.model_validate_json(event.model_dump_json()) == event
    assert rebuild_items(event, sources(demo)) == demo_set.items
    assert event.report == demo_set.report and event.seed == 0 and event.config == DEMO_CONFIG
    changed = {**sources(demo), demo_set.items[0].contract_id: "a different contract"}
    with pytest.raises(RebuildError, match="is not the one the set was built from"):
        rebuild_items(event, changed)


# --- CUAD v1: the paper's scale ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cuad_dir():
    """The CUAD v1 folder, shared by this module's tests (conftest's fixture is per test)."""
    if not (CUAD_DIR / "master_clauses.csv").exists():
        pytest.skip(f"CUAD v1 not found at {CUAD_DIR} (set LHL_CUAD_DIR to run CUAD-scale tests)")
    return CUAD_DIR


@pytest.fixture(scope="module")
def cuad(cuad_dir):
    return load_master_layout(cuad_dir)


@pytest.fixture(scope="module")
def cuad_set(cuad):
    started = time.perf_counter()
    built = build_items(cuad.contracts, 44, seed=0, corpus=cuad.name)
    print(f"\nbuilt 44 CUAD items in {time.perf_counter() - started:.1f} s "
          f"({built.eligible} of {len(cuad.contracts)} contracts eligible)")
    return built


def test_44_cuad_items_hold_every_category_in_roughly_the_papers_proportions(cuad_set):
    assert len(cuad_set.items) == 44
    held = Counter(g.category for item in cuad_set.items for g in item.gold)
    assert all(held[k] >= 30 for k in CATEGORY_KEYS), held
    errors = sum(held[c.key] for c in ERROR_CATEGORIES)
    paper = sum(c.paper_total for c in ERROR_CATEGORIES)
    for cat in ERROR_CATEGORIES:  # each category's share within a factor of 2.5 of the paper's
        share, paper_share = held[cat.key] / errors, cat.paper_total / paper
        assert paper_share / 2.5 <= share <= paper_share * 2.5, (cat.key, share, paper_share)
    assert cuad_set.report.kept == {c.key: held[c.key] for c in CATEGORIES if c.key != "defined_terms"}


def test_wrong_section_references_span_distances_past_10000_characters(cuad_set):
    distances = [g.distance for item in cuad_set.items for g in item.gold
                 if g.category == "incorrect_section_references"]
    assert all(d is not None for d in distances)
    assert sum(d > LONG_DISTANCE for d in distances) >= 20 and sum(d < 2_500 for d in distances) >= 20
    assert cuad_set.report.references_past_long_distance == sum(d > LONG_DISTANCE for d in distances)


def test_every_kept_cuad_defect_holds_and_every_edit_undoes(cuad, cuad_set):
    texts = sources(cuad)
    for item in cuad_set.items:
        assert verify_item(item, texts[item.contract_id]) == [], item.contract_id
        assert undo_edits(item) == texts[item.contract_id]


def test_the_cuad_set_is_reproducible_to_the_byte_and_round_trips(cuad, cuad_set):
    data = export_items(cuad_set.items)
    again = build_items(cuad.contracts, 44, seed=0, corpus=cuad.name)
    assert export_items(again.items) == data
    assert parse_items(data) == cuad_set.items and export_items(parse_items(data)) == data
    assert rebuild_items(items_built(cuad_set, requested=44), sources(cuad)) == cuad_set.items
