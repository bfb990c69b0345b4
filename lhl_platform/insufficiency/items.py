"""InsufficiencyBench items and the loader of the published item format (`lhl ingest insufficiency FILE.jsonl`).

An item is a legal query put to the model under test. A **base** item is fully specified (no missing
elements); a **variant** removes sentences from its base, and its `missing_elements` are the elements no longer
supplied, each with a sub-tag, one of eight canonical categories, a `required` flag and an attorney-style
reference explanation (shown to the judge, never to the model under test). Its **gold** is the seed's ground
truth M_v: the *required* elements only (seed section 3.1). A non-required element is kept and shown as such, but
it is not gold: naming it is not a hit, leaving it out is not a miss, and the judge is not shown it (so a
response that claims it missing is an additional claim, as every claimed gap outside M_v is in the seed). A
variant must record at least one required element. The file format, one item a
line, is the contract of docs/formats.md section 2:

    {"item_id", "base_id", "kind": "base" | "variant", "domain", "jurisdiction", "query",
     "missing_elements": [{"sub_tag", "category", "required", "explanation"}]}

The loader validates the whole file before returning anything: a line that is not JSON, a field it cannot
map, a category it does not know, a duplicate id, a variant without its base in the file, is one error line
naming the file and the line.
"""

from __future__ import annotations

import hashlib
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field, ValidationError, model_validator

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.domain.reviewed import Reviewed
from lhl_platform.jsonl import JsonlError, describe, parse_lines


class Category(StrEnum):
    """The eight canonical missing-element categories (seed Table 1); the keys are part of the contract."""

    JURISDICTION = "jurisdiction"
    CONTROLLING_TEXT = "controlling_text"
    FACTS_OF_HARM = "facts_of_harm"
    PARTIES_AND_STATUS = "parties_and_status"
    PROCEDURAL_POSTURE = "procedural_posture"
    USER_GOAL = "user_goal"
    TIMING = "timing"
    CONSIDERATION = "consideration"


class FailureMode(StrEnum):
    """How a missing element of a category disrupts the analysis (seed section 3.3)."""

    SWITCH = "switch"  # selects between legal frameworks
    GATING = "gating"  # decides whether a framework attaches
    FATAL_PREREQUISITE = "fatal_prerequisite"  # a condition within an applicable framework


FAILURE_MODE: dict[Category, FailureMode] = {
    Category.JURISDICTION: FailureMode.SWITCH,
    Category.CONTROLLING_TEXT: FailureMode.SWITCH,
    Category.FACTS_OF_HARM: FailureMode.SWITCH,
    Category.PARTIES_AND_STATUS: FailureMode.GATING,
    Category.PROCEDURAL_POSTURE: FailureMode.GATING,
    Category.USER_GOAL: FailureMode.GATING,
    Category.TIMING: FailureMode.GATING,
    Category.CONSIDERATION: FailureMode.FATAL_PREREQUISITE,
}


class ItemKind(StrEnum):
    BASE = "base"
    VARIANT = "variant"


class Provenance(StrEnum):
    """Where an item set comes from; every report says so (a self-built set is not the published release)."""

    SELF_BUILT = "self-built"
    EXTERNAL = "external"


SubTag = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]
ItemId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")]
Text = Annotated[str, Field(min_length=1)]


class MissingElement(_Frozen):
    sub_tag: SubTag
    category: Category
    required: bool
    explanation: Text


class Item(_Frozen):
    item_id: ItemId
    base_id: ItemId
    kind: ItemKind
    domain: Text
    jurisdiction: Text
    query: Text
    missing_elements: tuple[MissingElement, ...] = ()
    reviewed: Reviewed | None = None  # exported at a reviewed gold version (`lhl insufficiency export --gold-version`)

    @model_validator(mode="after")
    def _consistent(self) -> Item:
        if self.kind is ItemKind.BASE:
            if self.missing_elements:
                raise ValueError("a base item is fully specified: its missing_elements must be empty")
            if self.base_id != self.item_id:
                raise ValueError(f"a base item is its own base: base_id {self.base_id!r} != item_id {self.item_id!r}")
        else:
            if not self.missing_elements:
                raise ValueError("a variant must record at least one missing element")
            if not any(e.required for e in self.missing_elements):
                raise ValueError("a variant must record at least one required missing element (its gold, the "
                                 "seed's M_v, holds the required elements only)")
            if self.base_id == self.item_id:
                raise ValueError("a variant's base_id must name its base item, not itself")
        tags = [e.sub_tag for e in self.missing_elements]
        if len(set(tags)) != len(tags):
            raise ValueError(f"missing_elements repeats a sub_tag: {sorted(t for t in set(tags) if tags.count(t) > 1)}")
        return self

    @property
    def gold_elements(self) -> tuple[MissingElement, ...]:
        """The ground truth (the seed's M_v): the required missing elements, in the order recorded."""
        return tuple(e for e in self.missing_elements if e.required)

    @property
    def gold(self) -> tuple[str, ...]:
        """The ground-truth missing sub-tags (required elements only), in the order recorded."""
        return tuple(e.sub_tag for e in self.gold_elements)

    @property
    def non_required(self) -> tuple[str, ...]:
        """Missing elements recorded as not required: shown, never scored as gold."""
        return tuple(e.sub_tag for e in self.missing_elements if not e.required)

    def element(self, sub_tag: str) -> MissingElement:
        return next(e for e in self.missing_elements if e.sub_tag == sub_tag)


class ItemSet(_Frozen):
    """A validated set of items with where it came from. `item_set_id` fingerprints the items themselves."""

    name: Text
    provenance: Provenance
    description: str = ""
    source: str  # the file or package resource it was read from
    sha256: str  # of the source bytes
    items: tuple[Item, ...]

    @property
    def item_set_id(self) -> str:
        return items_digest(self.items)

    @property
    def self_built(self) -> bool:
        return self.provenance is Provenance.SELF_BUILT

    def bases(self) -> tuple[Item, ...]:
        return tuple(i for i in self.items if i.kind is ItemKind.BASE)

    def variants(self) -> tuple[Item, ...]:
        return tuple(i for i in self.items if i.kind is ItemKind.VARIANT)

    def by_id(self) -> dict[str, Item]:
        return {i.item_id: i for i in self.items}


SELF_BUILT_NOTE = ("self-built: written for this platform from the seed's construction protocol, not the published "
                   "InsufficiencyBench release; its figures are not the paper's")


def about_item_set(provenance: Provenance | str, name: str, source: str, description: str) -> str:
    """What a set is, in one line, as every report says it: the shipped set is self-built (and says what that
    means); an external set is described only by its own name, source and description as given at ingestion."""
    if str(provenance) == Provenance.SELF_BUILT:
        return f"{name}, {SELF_BUILT_NOTE}"
    given = description.strip() or ("no description was given at ingestion "
                                     "(`lhl ingest insufficiency FILE --description ...`)")
    return f"{name}, external: ingested from {source}; {given}"


class ItemFileError(JsonlError):
    """An item file that cannot be loaded whole; the message names the file and the line."""


def items_digest(items: tuple[Item, ...]) -> str:
    """A short fingerprint of the items (their canonical JSON), to record which set a result came from."""
    return hashlib.sha256("\n".join(i.model_dump_json() for i in items).encode()).hexdigest()[:16]


def parse_items(text: str, source: str) -> tuple[Item, ...]:
    """Every line validated, then the lines checked against each other; the first problem raises."""
    try:
        rows = parse_lines(text, source)
    except JsonlError as exc:
        raise ItemFileError(str(exc)) from None
    items: list[Item] = []
    first_line: dict[str, int] = {}
    for number, row in rows:
        try:
            item = Item.model_validate(row)
        except ValidationError as exc:
            raise ItemFileError(f"{source}: line {number}: {describe(exc, _model_at(exc))}") from None
        if item.item_id in first_line:
            raise ItemFileError(f"{source}: line {number}: item_id {item.item_id!r} already on line "
                                f"{first_line[item.item_id]}")
        first_line[item.item_id] = number
        items.append(item)
    bases = {i.item_id for i in items if i.kind is ItemKind.BASE}
    for item in items:
        if item.kind is ItemKind.VARIANT and item.base_id not in bases:
            raise ItemFileError(f"{source}: line {first_line[item.item_id]}: variant {item.item_id!r} names base "
                                f"{item.base_id!r}, which is not a base item of this file")
    return tuple(items)


def _model_at(exc: ValidationError) -> type[BaseModel]:
    """The model whose fields an error's location points into (to list the fields it knows)."""
    loc = exc.errors()[0]["loc"]
    return MissingElement if loc and loc[0] == "missing_elements" and len(loc) > 2 else Item


def dump_items(items: tuple[Item, ...]) -> str:
    """The published format: one item a line, fields in the contract's order."""
    return "".join(item.model_dump_json(exclude=None if item.reviewed else {"reviewed"}) + "\n" for item in items)


def load_items(path: Path, *, name: str | None = None, description: str | None = None) -> ItemSet:
    """Load an item file in the published format. A file byte-identical to the shipped self-built set is
    labelled self-built (so ingesting the exported demo set never passes it off as external data). Any other file
    is an external set, described by what its user gives: its name (default: the file's stem), its source (the
    file) and its description (empty when none is given; reports then say so, never borrowing the self-built
    set's)."""
    if not path.is_file():
        raise ItemFileError(f"{path}: no such file")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ItemFileError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    items = parse_items(text, str(path))
    sha = hashlib.sha256(data).hexdigest()
    from lhl_platform.insufficiency.selfbuilt import self_built_items  # lazy: the shipped set is built on demand

    shipped = self_built_items()
    if dump_items(items) == dump_items(shipped.items):
        return shipped.model_copy(update={"source": str(path), "sha256": sha})
    return ItemSet(name=name or path.stem, provenance=Provenance.EXTERNAL, source=str(path), sha256=sha,
                   items=items, description=(description or "").strip())
