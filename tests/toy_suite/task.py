"""The toy task: name the parties of one contract."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from lhl_platform.factory import BuildContext, OfflineEntry
from lhl_platform.providers.base import Message, Task
from lhl_platform.providers.offline.adapter import OfflineModel


class PartiesOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    parties: list[str]


class PartiesTask(Task):
    kind: Literal["toy-parties"] = "toy-parties"
    contract_id: str
    contract_text: str

    def subject(self) -> str:
        return self.contract_id


PartiesTask.output = PartiesOutput


def messages(task: PartiesTask) -> tuple[Message, ...]:
    return (Message(role="system", content="Name the parties of the contract. Answer JSON: {\"parties\": [...]}."),
            Message(role="user", content=task.contract_text))


_BETWEEN = re.compile(r"between\s+(.+?),?\s+(?:a|an)\s.+?\s+and\s+(.+?),?\s+(?:a|an)\s", re.S)
_CAPITALS = re.compile(r"\b((?:[A-Z][a-z]+\s){1,3}(?:Inc\.|LLC|Ltd\.|Corporation|Corp\.|GmbH|plc))")


def between(task: Task) -> BaseModel:
    """The two names around `between ... and ...` in the preamble (a trivial baseline)."""
    assert isinstance(task, PartiesTask)
    found = _BETWEEN.search(task.contract_text[:2000])
    return PartiesOutput(parties=[found.group(1).strip(), found.group(2).strip()] if found else [])


def capitals(task: Task) -> BaseModel:
    """Every capitalised name with a company suffix in the first 2,000 characters (over-eager on purpose)."""
    assert isinstance(task, PartiesTask)
    return PartiesOutput(parties=list(dict.fromkeys(_CAPITALS.findall(task.contract_text[:2000]))))


def _builder(answer: object, version: str) -> object:
    def build(model_id: str, ctx: BuildContext) -> OfflineModel:
        return OfflineModel(model_id, version, answer)  # type: ignore[arg-type]

    return build


OFFLINE_MODELS = {"toy-between": OfflineEntry("extractor", _builder(between, "toy-between-v1")),  # type: ignore[arg-type]
                  "toy-capitals": OfflineEntry("extractor", _builder(capitals, "toy-capitals-v1"))}  # type: ignore[arg-type]
