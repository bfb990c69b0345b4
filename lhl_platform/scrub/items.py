"""ContractScrub items and their gold, and the release JSONL format (docs/formats.md section 1).

One contract a line:

    {"contract_id": ..., "text": ..., "gold": [{"category", "term", "location", "wrong", "correct",
     "location_2"}], "source": {"corpus", "contract_id", "sha256"}}

Fields a category does not use are absent or null. A set built by injection (`lhl scrub export`) adds
`source` per contract (the SHA-256 of the source text as UTF-8) and, on each injected gold tuple,
`edit: {start, end, original}`: the character offsets of the injected text in `text` and the source text
it replaced, so that undoing every edit gives the source contract back byte for byte. Injected section
references also carry `distance`: characters between the reference and the start of the section it should
point to (the paper's long-distance analysis); gold without it (the real release) has no distance.

The same reader loads the paper's release (`lhl ingest contractscrub`) and this platform's own export, and
validates the whole file first: the first problem is one error naming the line and the field.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import Field, ValidationError, model_validator

from lhl_platform.domain.models import Frozen as _Frozen  # the one frozen base
from lhl_platform.domain.reviewed import Reviewed
from lhl_platform.jsonl import JsonlError, parse_lines
from lhl_platform.scrub.categories import FINDING_FIELDS, CategoryKey, category


class Edit(_Frozen):
    """Where injected text sits in the item's text, and the source text it replaced."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    original: str

    @model_validator(mode="after")
    def _ordered(self) -> Edit:
        if self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}")
        return self


class Source(_Frozen):
    """The source contract an injected item was built from."""

    corpus: str = Field(min_length=1)
    contract_id: str = Field(min_length=1)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class Finding(_Frozen):
    """One tuple of a category: its fields, the ones the category does not use left None."""

    category: CategoryKey
    term: str | None = None
    location: str | None = None
    wrong: str | None = None
    correct: str | None = None
    location_2: str | None = None

    @model_validator(mode="after")
    def _fields_of_its_category(self) -> Finding:
        used = category(self.category).fields
        for name in FINDING_FIELDS:
            value = getattr(self, name)
            if name in used and value is None:
                raise ValueError(f"{self.category} needs field {name!r}")
            if name not in used and value is not None:
                raise ValueError(f"{self.category} has no field {name!r} (leave it absent or null)")
        return self

    def fields(self) -> dict[str, str]:
        """The category's fields and their values."""
        return {name: str(getattr(self, name)) for name in category(self.category).fields}


class GoldFinding(Finding):
    """A gold tuple. Built by injection, it records its edit (and, for a section reference, its distance)."""

    edit: Edit | None = None
    distance: int | None = Field(default=None, ge=0, description="section references: characters from the "
                                 "reference to the start of the section it should point to")

    @model_validator(mode="after")
    def _non_empty_fields(self) -> GoldFinding:
        for name in category(self.category).fields:
            if not str(getattr(self, name)).strip():
                raise ValueError(f"field {name!r} is empty")
        if self.distance is not None and self.category != "incorrect_section_references":
            raise ValueError("only incorrect_section_references carry a distance")
        return self


class ScrubItem(_Frozen):
    """One contract to scrub and its gold."""

    contract_id: str = Field(min_length=1)
    text: str
    gold: tuple[GoldFinding, ...]
    source: Source | None = None
    reviewed: Reviewed | None = None  # exported at a reviewed gold version (`lhl scrub export --gold-version N`)

    @model_validator(mode="after")
    def _edits_fit_the_text(self) -> ScrubItem:
        spans = sorted((g.edit.start, g.edit.end) for g in self.gold if g.edit is not None)
        for _, end in spans:
            if end > len(self.text):
                raise ValueError(f"an edit ends at {end}, past the end of the text ({len(self.text)} characters)")
        for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
            if start < end:
                raise ValueError(f"edits overlap at character {start}")
        return self

    @property
    def text_sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


# Distance buckets of section references, by upper bound in characters; the last bucket is open-ended. The
# paper's finding is that recall falls most past 10,000 characters (about five to six pages).
DISTANCE_BUCKETS = (2_500, 5_000, 10_000, 20_000)


def distance_bucket(distance: int) -> str:
    """The bucket a distance falls in, named by its range: `0-2500`, ..., `20000+`."""
    lower = 0
    for upper in DISTANCE_BUCKETS:
        if distance < upper:
            return f"{lower}-{upper}"
        lower = upper
    return f"{lower}+"


def bucket_names() -> tuple[str, ...]:
    return tuple(distance_bucket(b - 1) for b in DISTANCE_BUCKETS) + (f"{DISTANCE_BUCKETS[-1]}+",)


class ItemsFormatError(ValueError):
    """A file in the release format that cannot be loaded whole; the message names the line and field."""


def item_line(item: ScrubItem) -> str:
    """One item as one JSONL line (without its newline): keys in the release order, unused fields absent."""
    body: dict[str, Any] = {"contract_id": item.contract_id, "text": item.text,
                            "gold": [g.model_dump(mode="json", exclude_none=True) for g in item.gold]}
    if item.source is not None:
        body["source"] = item.source.model_dump(mode="json")
    if item.reviewed is not None:
        body["reviewed"] = item.reviewed.model_dump(mode="json")
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def export_items(items: Iterable[ScrubItem]) -> bytes:
    """The release JSONL of a set: the same items always give the same bytes."""
    return "".join(item_line(item) + "\n" for item in items).encode("utf-8")


def item_set_id(items: Iterable[ScrubItem]) -> str:
    """A set's identity: the first 16 hex digits of the SHA-256 of its release JSONL."""
    return hashlib.sha256(export_items(items)).hexdigest()[:16]


def _field_path(loc: Sequence[int | str]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def parse_items(data: bytes | str, name: str = "<items>") -> tuple[ScrubItem, ...]:
    """Every item of a release JSONL, or an ItemsFormatError naming the first bad line and field."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    items: list[ScrubItem] = []
    seen: dict[str, int] = {}
    try:
        rows = parse_lines(text, name)
    except JsonlError as exc:
        raise ItemsFormatError(str(exc)) from None
    for number, raw in rows:
        where = f"{name}: line {number}"
        try:
            item = ScrubItem.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = _field_path(first["loc"])
            raise ItemsFormatError(f"{where}: {'field ' + field + ': ' if field else ''}{first['msg']}") from None
        if item.contract_id in seen:
            raise ItemsFormatError(f"{where}: field contract_id: {item.contract_id!r} is already on line "
                                   f"{seen[item.contract_id]}")
        seen[item.contract_id] = number
        items.append(item)
    return tuple(items)


def undo_edits(item: ScrubItem) -> str:
    """The source text: every edit of the item undone (the last first, so earlier offsets stay valid)."""
    text = item.text
    for edit in sorted((g.edit for g in item.gold if g.edit is not None), key=lambda e: e.start, reverse=True):
        text = text[:edit.start] + edit.original + text[edit.end:]
    return text
