"""The nine ContractScrub categories (docs/formats.md section 1): their keys, finding fields, and the title,
definition and instruction the task prompt shows for each.

The keys and fields are part of the suite's file and JSON contracts. The titles and definitions follow the
paper's Table 1 and Appendix A; the instructions are this platform's own wording (the paper's prompt
templates are not public in full).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CategoryKey = Literal[
    "defined_terms",
    "undefined_capitalized_terms",
    "uncapitalized_defined_terms",
    "unused_defined_terms",
    "incorrect_section_references",
    "incorrect_party_references",
    "incorrectly_capitalized_terms",
    "terms_defined_multiple_times",
    "inconsistent_language",
]
FieldName = Literal["term", "location", "wrong", "correct", "location_2"]
FINDING_FIELDS: tuple[FieldName, ...] = ("term", "location", "wrong", "correct", "location_2")


@dataclass(frozen=True)
class Category:
    key: CategoryKey
    title: str
    definition: str
    instruction: str
    fields: tuple[FieldName, ...]
    paper_total: int  # gold tuples in the paper's 44 contracts (Table 4)

    @property
    def paired(self) -> bool:
        """Findings that name two locations, matched in either order."""
        return "location_2" in self.fields

    @property
    def term_fields(self) -> tuple[FieldName, ...]:
        """The fields the term-only ablation matches on (every field but the locations)."""
        return tuple(f for f in self.fields if f not in ("location", "location_2"))

    @property
    def is_error(self) -> bool:
        """Every category but `defined_terms` (an extraction category) is a drafting error."""
        return self.key != "defined_terms"


_LOCATION_HELP = ("the section where it occurs, numbered as in the contract (for example 4.2 or 1.1(a)), or P for "
                  "the preamble, R for the recitals, Exhibit A, Schedule 2, Signature Block")

CATEGORIES: tuple[Category, ...] = (
    Category(
        "defined_terms", "Defined Terms",
        "Words or phrases formally defined in the agreement with a designated meaning, often capitalised, "
        "underlined, bolded, italicised, or in quotations.",
        "List every defined term, once for each place where it is defined: the term exactly as defined and the "
        f"location of its definition ({_LOCATION_HELP}).",
        ("term", "location"), 1505),
    Category(
        "undefined_capitalized_terms", "Undefined Capitalized Terms",
        "Terms that are capitalised or otherwise treated as a defined term in the agreement but are not formally "
        "defined anywhere in it.",
        "List every occurrence of a capitalised term used as if it were defined although the agreement defines it "
        "nowhere. Ignore proper names, headings, the first word of a sentence and references to sections, "
        f"exhibits and schedules. Give the term as written and its location ({_LOCATION_HELP}).",
        ("term", "location"), 689),
    Category(
        "uncapitalized_defined_terms", "Uncapitalized Defined Terms",
        "Formally defined terms appearing in lowercase where they should be capitalised.",
        "List every occurrence of a defined term written in lowercase where the defined meaning is intended. Give "
        f"the term as defined and the location of the lowercase occurrence ({_LOCATION_HELP}).",
        ("term", "location"), 317),
    Category(
        "unused_defined_terms", "Unused Defined Terms",
        "Defined terms that are not used anywhere outside the place where they are defined.",
        f"List every defined term that is never used after its definition: the term and the location of its "
        f"definition ({_LOCATION_HELP}).",
        ("term", "location"), 202),
    Category(
        "incorrect_section_references", "Incorrect Section, Article, or Paragraph References",
        "Internal cross-references that point to the wrong section, article or paragraph of the agreement.",
        "List every internal cross-reference that points to the wrong provision: the reference as written (wrong), "
        "the section it should point to (correct), both as section numbers, and the location of the reference "
        f"({_LOCATION_HELP}).",
        ("wrong", "correct", "location"), 150),
    Category(
        "incorrect_party_references", "Incorrect Party References",
        "Instances where a party is referred to by the wrong party name or role, such as Licensor instead of "
        "Licensee.",
        "List every place where the wrong party is named: the name as written (wrong), the party that should be "
        f"named (correct), and the location ({_LOCATION_HELP}).",
        ("wrong", "correct", "location"), 130),
    Category(
        "incorrectly_capitalized_terms", "Incorrectly Capitalized Terms In Context",
        "Terms that have a definition but are capitalised in a context where they are not being used as the "
        "defined term.",
        "List every occurrence of a defined term that is capitalised although the sentence does not mean the "
        f"defined term (for example another agreement, third parties, similar services). Give the term as written "
        f"and its location ({_LOCATION_HELP}).",
        ("term", "location"), 129),
    Category(
        "terms_defined_multiple_times", "Terms Defined Multiple Times",
        "Terms defined more than once in the agreement with conflicting or inconsistent definitions. A term merely "
        "repeated with the same meaning is not an error.",
        "List every term whose definitions genuinely conflict: the term and the locations of two conflicting "
        f"definitions (location and location_2, in either order; {_LOCATION_HELP}).",
        ("term", "location", "location_2"), 97),
    Category(
        "inconsistent_language", "Inconsistent Language",
        "Language in the agreement that directly contradicts itself or other language elsewhere in the agreement.",
        "List every pair of provisions that directly contradict each other (for example two different periods or "
        f"amounts for the same thing): their locations (location and location_2, in either order; {_LOCATION_HELP}).",
        ("location", "location_2"), 87),
)
CATEGORY_KEYS: tuple[CategoryKey, ...] = tuple(c.key for c in CATEGORIES)
BY_KEY: dict[str, Category] = {c.key: c for c in CATEGORIES}
ERROR_CATEGORIES: tuple[Category, ...] = tuple(c for c in CATEGORIES if c.is_error)
# The term-only ablation covers the categories that have a field besides the locations (8 of 9).
TERM_CATEGORIES: tuple[Category, ...] = tuple(c for c in CATEGORIES if c.term_fields)


def category(key: str) -> Category:
    """The category of a key, or a ValueError naming the valid keys."""
    try:
        return BY_KEY[key]
    except KeyError:
        raise ValueError(f"unknown category {key!r}; choose one of: {', '.join(CATEGORY_KEYS)}") from None
