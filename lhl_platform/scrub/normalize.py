"""Normalisation before matching (docs/method.md section 15): gold and predictions alike, field by field.

**Terms and words** (`term`; `wrong` and `correct` of party references):

1. lower-cased with `str.lower`: `Licensor` -> `licensor`;
2. surrounding whitespace stripped and inner runs of whitespace collapsed to one space:
   `  Effective\n Date ` -> `effective date`;
3. nothing else: quotation marks, plurals and punctuation are kept (`"Licensor"` does not match `Licensor`).

**Locations** (`location`, `location_2`; `wrong` and `correct` of section references), in this order:

1. whitespace stripped and collapsed, letters lower-cased: `Section 2.1(A)` -> `section 2.1(a)`;
2. the preamble: `P`, `Pre`, `Preamble`, `Introduction`, `Intro` -> `P`;
3. the recitals: `R`, `Recital(s)` (with or without a letter: `Recital B`), `Whereas Clause(s)`, `Background`
   -> `R`;
4. the signature block: `Signature Block`, `Signature Page(s)`, `Signature(s)`, `Sig. Block`, `SB`
   -> `Signature Block`;
5. `Exhibit`, `Exh.`, `Ex.` and a label -> `Exhibit <LABEL>`; likewise `Schedule`/`Sched.`, `Annex`,
   `Appendix`/`App.`, `Attachment`/`Att.`; the label upper-cased, anything after it normalised as a location:
   `exh. a` -> `Exhibit A`, `Schedule 2, Section 1(a)` -> `Schedule 2 1a`;
6. a leading `Section(s)`, `Sec.`, `§`/`§§`, `Article(s)`, `Art.`, `Clause(s)`, `Paragraph(s)`, `Para.`, `¶`
   dropped: `§ 8.2` -> `8.2`;
7. after `Article`, a Roman numeral becomes its value: `Article IV` -> `4`, `Article VII(g)` -> `7g`;
8. parentheses (and spaces) removed, dots kept: `1(a)(i)` -> `1ai`, `1.1(h)(vii)` -> `1.1hvii`, so
   `1.1(d)` -> `1.1d` and `11(d)` -> `11d` differ;
9. a trailing dot dropped: `8.` -> `8`.

**Pairs.** `terms_defined_multiple_times` and `inconsistent_language` name two locations; their order does not
count (`(7a, 1e)` matches `(1e, 7a)`): the key holds the two normalised locations sorted.
"""

from __future__ import annotations

import re

from lhl_platform.scrub.categories import BY_KEY, FieldName
from lhl_platform.scrub.document import roman_value
from lhl_platform.scrub.items import Finding

Key = tuple[str, ...]


def normalize_term(value: str) -> str:
    """A term or word as matching compares it."""
    return " ".join(value.split()).lower()


_PREFIX = re.compile(r"^(?:sections?|sec\.?|§§?|articles?|art\.|clauses?|paragraphs?|para\.|¶)\s*")
_PREAMBLE = {"p", "pre", "preamble", "introduction", "intro"}
_RECITALS = re.compile(r"^(?:r|recitals?(?:\s+[a-z0-9]{1,3})?|whereas\s+clauses?|background)$")
_SIGNATURE = re.compile(r"^(?:signature\s+(?:block|pages?)|signatures?|sig\.?\s+block|sb)$")
_ATTACHMENT = re.compile(r"^(exhibit|exh\.?|ex\.|schedule|sched\.?|annex|appendix|app\.|attachment|att\.)\s*"
                         r"([a-z0-9]{1,3}(?:[.\-][a-z0-9]{1,3})?)\b[\s,:;\-]*(.*)$")
_ATTACHMENT_NAMES = {"exhibit": "Exhibit", "exh": "Exhibit", "ex": "Exhibit", "schedule": "Schedule",
                     "sched": "Schedule", "annex": "Annex", "appendix": "Appendix", "app": "Appendix",
                     "attachment": "Attachment", "att": "Attachment"}


def _section_number(value: str, article: bool) -> str:
    head, paren, rest = value.partition("(")
    if article and head.rstrip(".").isalpha() and (number := roman_value(head.rstrip("."))) is not None:
        value = f"{number}{paren}{rest}"  # Article VII(g) -> 7(g)
    return value.replace("(", "").replace(")", "").replace(" ", "").rstrip(".")


def normalize_location(value: str) -> str:
    """A location as matching compares it (the module's table, in order)."""
    text = " ".join(value.split()).lower()
    if text in _PREAMBLE:
        return "P"
    if _RECITALS.match(text):
        return "R"
    if _SIGNATURE.match(text):
        return "Signature Block"
    attachment = _ATTACHMENT.match(text)
    if attachment:
        name = _ATTACHMENT_NAMES[attachment.group(1).rstrip(".")]
        rest = normalize_location(attachment.group(3)) if attachment.group(3) else ""
        return f"{name} {attachment.group(2).upper()}" + (f" {rest}" if rest else "")
    article = bool(re.match(r"^(?:articles?|art\.)\s*", text))
    text = _PREFIX.sub("", text)
    return _section_number(text, article)


# How each field is normalised, per category: `wrong`/`correct` are section numbers for section references
# and party names for party references.
_LOCATION_FIELDS: dict[str, tuple[FieldName, ...]] = {
    "incorrect_section_references": ("wrong", "correct", "location"),
}


def _normalized(category: str, name: FieldName, value: str) -> str:
    location_fields = _LOCATION_FIELDS.get(category, ("location", "location_2"))
    if name in location_fields or name == "location_2":
        return normalize_location(value)
    return normalize_term(value)


def finding_key(finding: Finding, *, terms_only: bool = False) -> Key:
    """What a finding is matched on: its category's fields normalised, a pair of locations sorted; with
    `terms_only` (the term-only ablation), the location fields left out."""
    cat = BY_KEY[finding.category]
    names = cat.term_fields if terms_only else cat.fields
    values = {name: _normalized(cat.key, name, str(getattr(finding, name))) for name in names}
    if not terms_only and cat.paired:
        pair = tuple(sorted((values.pop("location"), values.pop("location_2"))))
        return tuple(values[n] for n in names if n in values) + pair
    return tuple(values[n] for n in names)
