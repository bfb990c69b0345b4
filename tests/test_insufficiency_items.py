"""InsufficiencyBench items: the published item format is loaded whole or not at all, with one clear error naming
the line and the field it cannot map; the self-built set is labelled self-built, is built the way the seed builds
its benchmark (variants remove sentences from their base, missing elements recorded per variant), and meets the
issue's counts.
"""

import fnmatch
import json
import tomllib
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from lhl_platform.insufficiency.items import (
    Category,
    ItemFileError,
    ItemKind,
    Provenance,
    dump_items,
    load_items,
    parse_items,
)
from lhl_platform.insufficiency.selfbuilt import (
    SelfBuiltError,
    SelfBuiltSource,
    build_items,
    self_built_items,
    self_built_source,
)

ROOT = Path(__file__).resolve().parents[1]
FIGURE_1 = ("I work for a private company in Los Angeles with about 85 employees. I reported my supervisor to HR for "
            "sexual harassment three weeks ago. Yesterday, my employer fired me and said it was due to poor "
            "performance. I have worked there for six years and have received strong annual reviews every year. I want "
            "to know if I have a retaliation claim and what damages I could recover.")

BASE = {"item_id": "b1", "base_id": "b1", "kind": "base", "domain": "tort", "jurisdiction": "US-NY",
        "query": "I slipped on ice outside a city library in Rochester, New York. Can I sue?", "missing_elements": []}
VARIANT = {"item_id": "b1-v1", "base_id": "b1", "kind": "variant", "domain": "tort", "jurisdiction": "US-NY",
           "query": "I slipped on ice outside a library. Can I sue?",
           "missing_elements": [{"sub_tag": "defendant_type", "category": "parties_and_status", "required": True,
                                 "explanation": "A city defendant needs a notice of claim within 90 days."}]}


def write(tmp_path: Path, rows: list[dict[str, object] | str]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


# The published format ------------------------------------------------------------------------------

def test_the_published_format_loads_as_an_external_item_set(tmp_path):
    items = load_items(write(tmp_path, [BASE, VARIANT]))
    assert items.provenance is Provenance.EXTERNAL and not items.self_built
    assert [i.item_id for i in items.items] == ["b1", "b1-v1"]
    variant = items.by_id()["b1-v1"]
    assert variant.kind is ItemKind.VARIANT and variant.gold == ("defendant_type",)
    assert variant.missing_elements[0].category is Category.PARTIES_AND_STATUS
    assert len(items.sha256) == 64 and items.item_set_id


def test_a_field_the_format_does_not_have_is_named_with_its_line(tmp_path):
    row = dict(VARIANT, difficulty="hard")
    with pytest.raises(ItemFileError, match=r"items.jsonl: line 2: field 'difficulty' cannot be mapped"):
        load_items(write(tmp_path, [BASE, row]))


def test_an_unmappable_field_inside_a_missing_element_is_named(tmp_path):
    element = dict(VARIANT["missing_elements"][0], severity=3)  # type: ignore[index]
    with pytest.raises(ItemFileError, match=r"line 2: field 'missing_elements\[0\]\.severity' cannot be mapped"):
        load_items(write(tmp_path, [BASE, dict(VARIANT, missing_elements=[element])]))


def test_an_unknown_category_is_named_with_the_categories_it_could_be(tmp_path):
    element = dict(VARIANT["missing_elements"][0], category="procedure")  # type: ignore[index]
    with pytest.raises(ItemFileError, match=r"line 2: missing_elements\[0\]\.category: .*'procedural_posture'"):
        load_items(write(tmp_path, [BASE, dict(VARIANT, missing_elements=[element])]))


@pytest.mark.parametrize(("rows", "message"), [
    ([BASE, "{not json"], r"line 2: not valid JSON"),
    ([BASE, "[1, 2]"], r"line 2: expected a JSON object"),
    ([{k: v for k, v in BASE.items() if k != "query"}], r"line 1: field 'query' is missing"),
    ([BASE, BASE], r"line 2: item_id 'b1' already on line 1"),
    ([VARIANT], r"line 1: variant 'b1-v1' names base 'b1', which is not a base item of this file"),
    ([dict(BASE, missing_elements=VARIANT["missing_elements"])], r"line 1: a base item is fully specified"),
    ([BASE, dict(VARIANT, missing_elements=[])], r"line 2: a variant must record at least one missing element"),
    ([dict(BASE, kind="deficient")], r"line 1: kind: Input should be 'base' or 'variant'"),
])
def test_a_bad_line_is_one_error_naming_it(tmp_path, rows, message):
    with pytest.raises(ItemFileError, match=message):
        load_items(write(tmp_path, rows))


def test_an_empty_or_absent_file_is_an_error(tmp_path):
    with pytest.raises(ItemFileError, match="no records"):
        load_items(write(tmp_path, []))
    with pytest.raises(ItemFileError, match="no such file"):
        load_items(tmp_path / "absent.jsonl")


def test_the_shipped_set_exported_and_ingested_stays_self_built_and_an_edited_copy_does_not(tmp_path):
    shipped = self_built_items()
    path = tmp_path / "self_built.jsonl"
    path.write_text(dump_items(shipped.items), encoding="utf-8")
    again = load_items(path)
    assert again.provenance is Provenance.SELF_BUILT and again.items == shipped.items
    assert again.item_set_id == shipped.item_set_id
    path.write_text(dump_items(shipped.items).replace("Los Angeles", "San Diego", 1), encoding="utf-8")
    assert load_items(path).provenance is Provenance.EXTERNAL


def test_every_shipped_item_is_one_line_of_the_published_format():
    text = dump_items(self_built_items().items)
    assert parse_items(text, "round-trip") == self_built_items().items
    for line in text.splitlines():
        assert set(json.loads(line)) == {"item_id", "base_id", "kind", "domain", "jurisdiction", "query",
                                         "missing_elements"}


# The self-built set ------------------------------------------------------------------------------

def test_the_self_built_set_is_labelled_self_built():
    items = self_built_items()
    assert items.provenance is Provenance.SELF_BUILT and items.self_built
    assert "self-built" in items.name and "not the published release" in items.description


def test_the_self_built_set_meets_the_issue_counts():
    items = self_built_items()
    bases, variants = items.bases(), items.variants()
    assert len(bases) >= 12
    assert len({b.domain for b in bases}) >= 5
    assert len({b.jurisdiction for b in bases}) >= 5 and all(b.jurisdiction.startswith("US-") for b in bases)
    per_base = Counter(v.base_id for v in variants)
    assert all(per_base[b.item_id] >= 2 for b in bases)
    sizes = Counter(len(v.missing_elements) for v in variants)
    assert sizes[1] > 0 and sum(n for k, n in sizes.items() if k > 1) > 0  # single- and multi-element removals
    categories = {e.category for v in variants for e in v.missing_elements}
    assert categories == set(Category)  # all eight, procedural_posture and parties_and_status included
    for v in variants:
        for element in v.missing_elements:
            # a variant's missing set holds required elements (seed 3.1), but for the one element a review found
            # not required (q11c's investigation status, issue 42): recorded, never gold
            assert element.required is True or (v.item_id, element.sub_tag) == ("q11c", "investigation_status")
            assert len(element.explanation.split()) >= 12  # a reference explanation, not a label


def test_the_seed_figure_1_query_and_its_variant_1a_are_in_the_set():
    items = self_built_items().by_id()
    assert items["q01"].query == FIGURE_1 and items["q01"].jurisdiction == "US-CA"
    variant = items["q01a"]
    assert variant.base_id == "q01"
    assert variant.query == FIGURE_1.removeprefix("I work for a private company in Los Angeles with about 85 "
                                                  "employees. ")
    assert set(variant.gold) == {"jurisdiction", "employer_type", "employer_size"}
    assert {e.category for e in variant.missing_elements} == {Category.JURISDICTION, Category.PARTIES_AND_STATUS}


def test_each_variant_is_its_base_with_sentences_removed_or_minimally_revised():
    source = self_built_source()
    items = self_built_items().by_id()
    for base in source.bases:
        assert items[base.base_id].query == " ".join(base.sentences)
        for spec in base.variants:
            variant = items[f"{base.base_id}{spec.suffix}"]
            revised = {r.sentence: r.text for r in spec.revise}
            expected = [revised.get(i, s) for i, s in enumerate(base.sentences) if i not in spec.remove]
            assert variant.query == " ".join(expected)
            assert len(expected) <= len(base.sentences)
            touched = set(spec.remove) | set(revised)
            annotated = {e.sub_tag: set(e.sentences) for e in base.elements}
            assert all(annotated[t] & touched for t in variant.gold)


def _source_with(change) -> SelfBuiltSource:
    raw = json.loads(self_built_source().model_dump_json())
    change(raw["bases"][0])
    return SelfBuiltSource.model_validate(raw)


@pytest.mark.parametrize(("change", "message"), [
    (lambda b: b["variants"][0].update(missing=["jurisdiction", "employer_type"]), "not recorded missing"),
    (lambda b: b["variants"][2].update(missing=["jurisdiction"]), "none of its sentences was touched"),
    (lambda b: b["variants"][1].update(missing=["no_such_element"]), "is not an element of q01"),
    (lambda b: b["variants"][0].update(remove=[], revise=[]), "does not change its base query"),
    (lambda b: b["variants"][2].update(revise=[{"sentence": 4, "text": "What can I do?"}]),
     r"revises sentence\(s\) \[4\], which supply none of its recorded missing elements"),
])
def test_building_the_set_rejects_a_variant_that_breaks_the_protocol(change, message):
    with pytest.raises(SelfBuiltError, match=message):
        build_items(_source_with(change))


def test_the_package_data_is_declared_for_setuptools():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["lhl_platform.insufficiency"]
    data = resources.files("lhl_platform.insufficiency").joinpath("data")
    shipped = [p.name for p in data.iterdir() if p.is_file()]
    assert {"self_built.json", "judge_validation.jsonl", "prompt_identify_v1.txt",
            "prompt_explain_safety_v1.txt"} <= set(shipped)
    for name in shipped:
        assert any(fnmatch.fnmatch(f"data/{name}", p) for p in patterns), name


def test_the_variants_a_careful_read_rejected_are_fixed_or_dropped_in_version_2():
    """Issue 28: q04b (the deadline is the same either way), q04d (no question left) and q10c (the question says
    no charge was brought) are dropped; q05c, q08a and q08c (and q08d, which had both q08 flaws) are revised."""
    items = self_built_items()
    by_id = items.by_id()
    assert items.name.endswith("@self-built-v3")  # v3 (issue 42) changed no id and no count
    assert len(items.bases()) == 13 and len(items.variants()) == 40  # 43 in v1, three dropped
    assert not {"q04b", "q04d", "q10c"} & set(by_id)
    assert by_id["q05c"].gold == ("jurisdiction",) and "Texas" not in by_id["q05c"].query
    assert "one-year lease that runs through next March" in by_id["q05c"].query  # as much lease as the base gives
    for variant in ("q08a", "q08d"):
        assert "city" not in by_id[variant].query.lower() and "defendant_type" in by_id[variant].gold
    for variant in ("q08c", "q08d"):
        assert "Today is March 1." in by_id[variant].query and "filed" not in by_id[variant].query
        assert "claim_status" in by_id[variant].gold and "incident_date" not in by_id[variant].gold


def _sentences_taken(base_sentences: tuple[str, ...], variant_query: str) -> set[int]:
    """The base sentences a variant no longer has word for word: the ones it removed or revised."""
    return {i for i, sentence in enumerate(base_sentences) if sentence not in variant_query}


def test_every_variant_takes_from_its_base_exactly_the_sentences_of_its_recorded_missing_elements():
    """Read off the built queries, not the variant specs: a sentence a variant removes or rewrites supplies one of
    its recorded missing elements, and an element whose every sentence is removed is recorded missing."""
    items = self_built_items().by_id()
    for base in self_built_source().bases:
        annotated = {e.sub_tag: set(e.sentences) for e in base.elements}
        for spec in base.variants:
            variant = items[f"{base.base_id}{spec.suffix}"]
            taken = _sentences_taken(base.sentences, variant.query)
            recorded = {e.sub_tag for e in variant.missing_elements}
            covered = set().union(*(annotated[t] for t in recorded))
            assert taken <= covered, (variant.item_id, sorted(taken - covered))
            assert all(annotated[t] & taken for t in recorded), variant.item_id
            assert {t for t, at in annotated.items() if at <= set(spec.remove)} <= recorded, variant.item_id


# Issue 42, a reviewer's read of version 2: the fixes of version 3.

def test_q09_base_says_what_decides_suing_for_more_than_the_policy_limit():
    base = self_built_items().by_id()["q09"]
    assert "$100,000 of underinsured motorist coverage" in base.query
    assert "no other insurance and no significant assets" in base.query
    elements = {e.sub_tag: e for e in next(b for b in self_built_source().bases if b.base_id == "q09").elements}
    assert elements["um_coverage"].required and elements["driver_assets"].required


def test_q09a_removes_the_permanent_injury_and_keeps_the_bills_and_the_pip_payment():
    items = self_built_items().by_id()
    base = next(b for b in self_built_source().bases if b.base_id == "q09")
    variant = items["q09a"]
    assert [base.sentences[i] for i in _sentences_taken(base.sentences, variant.query)] == [
        "My orthopedist says the herniated disc in my neck is a permanent injury."]
    assert "My medical bills are $38,000, of which my own PIP coverage paid $10,000." in variant.query
    assert variant.gold == ("permanent_injury",)


def test_q11c_records_the_investigation_status_missing_but_not_required():
    variant = self_built_items().by_id()["q11c"]
    assert variant.gold == ("other_party_location",) and variant.non_required == ("investigation_status",)


def test_q12c_drops_who_sent_the_email_but_not_that_it_was_signed():
    variant = self_built_items().by_id()["q12c"]
    assert "In a signed email, the company promised" in variant.query and "her name and title" not in variant.query
    assert variant.gold == ("jurisdiction", "manager_authority")


def test_q13c_no_longer_says_the_seller_is_a_dealer():
    variant = self_built_items().by_id()["q13c"]
    assert "dealer" not in variant.query.lower() and "seller_status" in variant.gold
