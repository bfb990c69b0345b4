"""The 41 CUAD clause types and the four verification categories (docs/method.md, section 2)."""

from __future__ import annotations

import re
from enum import StrEnum


class Category(StrEnum):
    NUMERIC = "numeric"
    TEMPORAL = "temporal"
    FACTUAL = "factual"
    OBLIGATION = "obligation"


# Canonical names as CUAD's master_clauses.csv writes them, in its column order.
CLAUSE_TYPES: tuple[str, ...] = (
    "Document Name", "Parties", "Agreement Date", "Effective Date", "Expiration Date",
    "Renewal Term", "Notice Period To Terminate Renewal", "Governing Law", "Most Favored Nation",
    "Competitive Restriction Exception", "Non-Compete", "Exclusivity", "No-Solicit Of Customers",
    "No-Solicit Of Employees", "Non-Disparagement", "Termination For Convenience", "Rofr/Rofo/Rofn",
    "Change Of Control", "Anti-Assignment", "Revenue/Profit Sharing", "Price Restrictions",
    "Minimum Commitment", "Volume Restriction", "Ip Ownership Assignment", "Joint Ip Ownership",
    "License Grant", "Non-Transferable License", "Affiliate License-Licensor",
    "Affiliate License-Licensee", "Unlimited/All-You-Can-Eat-License",
    "Irrevocable Or Perpetual License", "Source Code Escrow", "Post-Termination Services",
    "Audit Rights", "Uncapped Liability", "Cap On Liability", "Liquidated Damages",
    "Warranty Duration", "Insurance", "Covenant Not To Sue", "Third Party Beneficiary",
)

_NUMERIC = {"Cap On Liability", "Liquidated Damages", "Price Restrictions", "Volume Restriction",
            "Minimum Commitment"}
_TEMPORAL = {"Agreement Date", "Effective Date", "Expiration Date", "Renewal Term",
             "Notice Period To Terminate Renewal", "Warranty Duration"}
_FACTUAL = {"Document Name", "Parties", "Governing Law"}

CATEGORY_OF: dict[str, Category] = {
    name: (Category.NUMERIC if name in _NUMERIC else Category.TEMPORAL if name in _TEMPORAL
           else Category.FACTUAL if name in _FACTUAL else Category.OBLIGATION)
    for name in CLAUSE_TYPES
}


def _fold(name: str) -> str:
    # CUAD writes "Ip"/"IP", "of"/"Of" and spaces around hyphens inconsistently.
    return re.sub(r"\s+", " ", re.sub(r"\s*-\s*", "-", name.strip())).casefold()


_BY_FOLDED = {_fold(n): n for n in CLAUSE_TYPES}


def canonical_clause_type(name: str) -> str:
    """Return the canonical clause-type name, matching case- and hyphen-spacing-insensitively."""
    found = _BY_FOLDED.get(_fold(name))
    if found is None:
        raise ValueError(f"unknown clause type {name!r} (expected one of the 41 CUAD types)")
    return found


def category_of(name: str) -> Category:
    return CATEGORY_OF[canonical_clause_type(name)]
