"""The self-built item set shipped with the platform (`data/self_built.json`), labelled self-built everywhere.

The file is written the way the seed builds its benchmark (section 3.1): each base query is a list of
sentences, each legally material element is annotated with the sentence(s) that supply it, and each variant
says which sentences it removes and which (if any) it minimally revises, and records its missing elements
explicitly (they are not derived from the removed sentences, as in the seed). Building the items checks what
the protocol promises, so a slip in the data is an error at build time, not a wrong figure later:

- a variant's query is exactly its base's sentences with the removed ones dropped and the revised ones
  replaced, in order;
- every missing element is an element of its base, and at least one of its source sentences was removed or
  revised;
- every element (required or not) whose source sentences were all removed is recorded as missing;
- every sentence a variant removes or revises supplies one of its recorded missing elements (so a variant takes
  away nothing it does not record; a sentence that supplies two things is split in the file when a variant
  removes only one of them);
- a variant misses at least one element and differs from its base.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import resources

from pydantic import Field

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.insufficiency.items import (
    Category,
    Item,
    ItemKind,
    ItemSet,
    MissingElement,
    Provenance,
    SubTag,
    Text,
)

SOURCE_FILE = "self_built.json"


class AnnotatedElement(_Frozen):
    sub_tag: SubTag
    category: Category
    required: bool
    sentences: tuple[int, ...] = Field(min_length=1)  # indices into the base's sentences
    explanation: Text


class Revision(_Frozen):
    sentence: int = Field(ge=0)
    text: Text


class VariantSpec(_Frozen):
    suffix: str = Field(pattern=r"^[a-z]$")
    remove: tuple[int, ...] = ()
    revise: tuple[Revision, ...] = ()
    missing: tuple[SubTag, ...] = Field(min_length=1)
    note: str = ""


class BaseSpec(_Frozen):
    base_id: str = Field(pattern=r"^q\d{2}$")
    domain: Text
    jurisdiction: str = Field(pattern=r"^US-[A-Z]{2}$")
    note: str = ""
    sentences: tuple[Text, ...] = Field(min_length=2)
    elements: tuple[AnnotatedElement, ...] = Field(min_length=1)
    variants: tuple[VariantSpec, ...] = Field(min_length=2)


class SelfBuiltSource(_Frozen):
    name: Text
    version: Text
    provenance: Provenance
    description: Text
    bases: tuple[BaseSpec, ...]


class SelfBuiltError(ValueError):
    pass


def _variant_query(base: BaseSpec, spec: VariantSpec, where: str) -> str:
    revised = {r.sentence: r.text for r in spec.revise}
    touched = set(spec.remove) | set(revised)
    if any(i >= len(base.sentences) for i in touched) or set(spec.remove) & set(revised):
        raise SelfBuiltError(f"{where}: removes or revises a sentence that does not exist, or both at once")
    kept = [revised.get(i, s) for i, s in enumerate(base.sentences) if i not in spec.remove]
    return " ".join(kept)


def _check_variant(base: BaseSpec, spec: VariantSpec, where: str) -> tuple[MissingElement, ...]:
    elements = {e.sub_tag: e for e in base.elements}
    touched = set(spec.remove) | {r.sentence for r in spec.revise}
    missing = []
    for tag in spec.missing:
        if tag not in elements:
            raise SelfBuiltError(f"{where}: missing element {tag!r} is not an element of {base.base_id}")
        if not touched & set(elements[tag].sentences):
            raise SelfBuiltError(f"{where}: {tag!r} is recorded missing but none of its sentences was touched")
        element = elements[tag]
        missing.append(MissingElement(sub_tag=tag, category=element.category, required=element.required,
                                      explanation=element.explanation))
    for element in base.elements:
        gone = set(element.sentences) <= set(spec.remove)
        if gone and element.sub_tag not in spec.missing:
            raise SelfBuiltError(f"{where}: every sentence of element {element.sub_tag!r} was removed, but it is "
                                 "not recorded missing")
    # A variant takes away only what it records: every sentence it removes or revises supplies a missing element.
    covered = {i for tag in spec.missing for i in elements[tag].sentences}
    stray = sorted(touched - covered)
    if stray:
        raise SelfBuiltError(f"{where}: removes or revises sentence(s) {stray}, which supply none of its recorded "
                             "missing elements")
    return tuple(missing)


def build_items(source: SelfBuiltSource) -> tuple[Item, ...]:
    """The base items and their variants, in file order, each checked against the construction protocol."""
    items: list[Item] = []
    for base in source.bases:
        tags = [e.sub_tag for e in base.elements]
        if len(set(tags)) != len(tags):
            raise SelfBuiltError(f"{base.base_id}: an element sub_tag is annotated twice")
        if any(i >= len(base.sentences) for e in base.elements for i in e.sentences):
            raise SelfBuiltError(f"{base.base_id}: an element points at a sentence that does not exist")
        query = " ".join(base.sentences)
        items.append(Item(item_id=base.base_id, base_id=base.base_id, kind=ItemKind.BASE, domain=base.domain,
                          jurisdiction=base.jurisdiction, query=query))
        for spec in base.variants:
            where = f"{base.base_id}{spec.suffix}"
            variant_query = _variant_query(base, spec, where)
            if variant_query == query:
                raise SelfBuiltError(f"{where}: the variant does not change its base query")
            items.append(Item(item_id=where, base_id=base.base_id, kind=ItemKind.VARIANT, domain=base.domain,
                              jurisdiction=base.jurisdiction, query=variant_query,
                              missing_elements=_check_variant(base, spec, where)))
    return tuple(items)


def _source_bytes() -> bytes:
    return resources.files("lhl_platform.insufficiency").joinpath("data", SOURCE_FILE).read_bytes()


@functools.cache
def self_built_source() -> SelfBuiltSource:
    return SelfBuiltSource.model_validate_json(_source_bytes())


@functools.cache
def self_built_items() -> ItemSet:
    """The shipped set, built and checked once per process."""
    source = self_built_source()
    if source.provenance is not Provenance.SELF_BUILT:
        raise SelfBuiltError(f"{SOURCE_FILE} must be labelled self-built")
    return ItemSet(name=f"{source.name}@{source.version}", provenance=Provenance.SELF_BUILT,
                   description=source.description, source=f"lhl_platform.insufficiency/data/{SOURCE_FILE}",
                   sha256=hashlib.sha256(_source_bytes()).hexdigest(), items=build_items(source))
