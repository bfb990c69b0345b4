"""Versioned extraction prompts. The version is part of every request key and every event."""

from __future__ import annotations

from lhl_platform.clause.extraction.definitions import DEFINITIONS, NOTES
from lhl_platform.providers.base import Message

EXTRACT_PROMPT_VERSION = "extract-v1"

_INSTRUCTIONS = """You review commercial contracts. For every clause type listed below, decide whether the
contract contains that clause. If it does, quote the clause verbatim from the contract (one or more
exact passages, no paraphrase, nothing added). If it does not, answer not present. Use only the
contract text; do not rely on what contracts usually say. Answer with JSON only:
{"clauses": [{"clause_type": "<name>", "present": true|false, "quotes": ["<verbatim passage>", ...]}]}
with exactly one entry per clause type, in the order given."""


def clause_catalogue(clause_types: tuple[str, ...]) -> str:
    lines = []
    for name in clause_types:
        lines.append(f"- {name}: {DEFINITIONS[name]}")
        if name in NOTES:
            lines.append(f"  NOTE: {NOTES[name]}")
    return "\n".join(lines)


def extraction_messages(contract_text: str, clause_types: tuple[str, ...]) -> tuple[Message, ...]:
    # The stable part (instructions and definitions) comes first, so providers' prefix caches can reuse it.
    system = f"{_INSTRUCTIONS}\n\nClause types:\n{clause_catalogue(clause_types)}"
    return (Message(role="system", content=system),
            Message(role="user", content=f"CONTRACT:\n<<<\n{contract_text}\n>>>"))
