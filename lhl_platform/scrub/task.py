"""The ContractScrub task: one call per (contract, category), as in the paper (each category in its own call,
to reduce competing demands).

The prompt holds the category's title, definition and instruction and the output schema; the answer is JSON,
`{"findings": [...]}` with the category's fields, validated against a strict Pydantic schema per category
(every field required, nothing extra), which the providers pass to their native structured output. The
instructions come first and the contract last, so a provider's prefix cache can reuse them across contracts.
The prompt version is part of every request key and every recorded finding.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lhl_platform.providers.base import Message, Task
from lhl_platform.providers.llm.schema import strict_json_schema
from lhl_platform.scrub.categories import BY_KEY, CategoryKey, category
from lhl_platform.scrub.items import Finding
from lhl_platform.suites.categories import category_outputs, category_tasks

SCRUB_PROMPT_VERSION = "scrub-v1"

_LOCATION = Field(description="where: a section number as the contract numbers it (4.2, 1.1(a)), or P, R, "
                              "Exhibit A, Schedule 2, Signature Block")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TermFinding(_Strict):
    term: str = Field(description="the term")
    location: str = _LOCATION


class ReferenceFinding(_Strict):
    wrong: str = Field(description="what the contract says")
    correct: str = Field(description="what it should say")
    location: str = _LOCATION


class RepeatedDefinitionFinding(_Strict):
    term: str = Field(description="the term defined more than once")
    location: str = _LOCATION
    location_2: str = Field(description="where the conflicting definition is (same format)")


class InconsistencyFinding(_Strict):
    location: str = _LOCATION
    location_2: str = Field(description="where the contradicting provision is (same format)")


# Each category's answer is `{"findings": [...]}` of one of the four shapes above.
SHAPES: dict[CategoryKey, type[_Strict]] = {
    "defined_terms": TermFinding,
    "undefined_capitalized_terms": TermFinding,
    "uncapitalized_defined_terms": TermFinding,
    "unused_defined_terms": TermFinding,
    "incorrect_section_references": ReferenceFinding,
    "incorrect_party_references": ReferenceFinding,
    "incorrectly_capitalized_terms": TermFinding,
    "terms_defined_multiple_times": RepeatedDefinitionFinding,
    "inconsistent_language": InconsistencyFinding,
}
OUTPUTS: dict[CategoryKey, type[BaseModel]] = category_outputs(SHAPES, _Strict, __name__)


class ScrubTask(Task):
    """Scrub one contract for one category. Each category is a subclass (`TASKS`) whose `output` is its schema."""

    kind: Literal["scrub"] = "scrub"
    contract_id: str = Field(min_length=1)
    contract_text: str
    category: CategoryKey

    def subject(self) -> str:
        return f"{self.contract_id}/{self.category}"


# One subclass per category (`DefinedTermsTask`, ...), its `category` fixed and its `output` the category's schema.
TASKS: dict[CategoryKey, type[ScrubTask]] = category_tasks(OUTPUTS, ScrubTask, __name__)


def scrub_task(category_key: str, contract_id: str, contract_text: str) -> ScrubTask:
    """The task of one (contract, category); an unknown category is a ValueError naming the valid ones."""
    cat = category(category_key)
    return TASKS[cat.key].model_validate({"contract_id": contract_id, "contract_text": contract_text})


_INSTRUCTIONS = """You are a senior lawyer doing the final review ("scrub") of a contract before signature. In this
pass you look for one category of drafting issue only, described below. Judge the contract by its own
conventions (its own definitions, numbering and parties), not by what contracts usually say. Report every
occurrence separately, including repeats of the same term in different places; report nothing that is not in
the contract. Give locations as the contract numbers its sections (for example 4.2 or 1.1(a)); use P for the
preamble, R for the recitals, Exhibit A or Schedule 2 for an exhibit or schedule, and Signature Block for the
signature block. If there is nothing to report, return an empty list."""


def system_prompt(category_key: CategoryKey) -> str:
    cat = BY_KEY[category_key]
    schema = json.dumps(strict_json_schema(OUTPUTS[category_key]), sort_keys=True)
    return (f"{_INSTRUCTIONS}\n\nCATEGORY: {cat.title}\nDEFINITION: {cat.definition}\nINSTRUCTION: "
            f"{cat.instruction}\n\nAnswer with JSON only, matching this schema:\n{schema}")


def scrub_messages(task: ScrubTask) -> tuple[Message, ...]:
    """The chat messages of one task: the category's instructions first (cacheable), the contract last."""
    return (Message(role="system", content=system_prompt(task.category)),
            Message(role="user", content=f"CONTRACT:\n<<<\n{task.contract_text}\n>>>"))


def findings_of(category_key: CategoryKey, output: BaseModel | dict[str, object]) -> tuple[Finding, ...]:
    """A validated answer as the findings scoring reads (the category added to each)."""
    model = output if isinstance(output, BaseModel) else OUTPUTS[category_key].model_validate(output)
    rows = model.model_dump(mode="json")["findings"]
    return tuple(Finding(category=category_key, **row) for row in rows)
